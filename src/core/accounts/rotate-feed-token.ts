// Decisions: docs/decisions/0080-private-instances.md
import { hashSecret, randomSecret } from './account.js';
import type { FeedTokenRepo } from './ports.js';

/** Prefix of feed tokens: recognisable, and distinct from API tokens (`kura_`), which grant more. */
const FEED_TOKEN_PREFIX = 'kura_feed_';

/**
 * Gives a user a new feed token, replacing (and so voiding) the one they had; the secret is
 * returned this once, only its hash is kept.
 */
export async function rotateFeedToken(deps: { feedTokens: FeedTokenRepo }, request: { userId: string }): Promise<{ token: string; createdAt: Date }> {
  const token = `${FEED_TOKEN_PREFIX}${randomSecret()}`;
  const createdAt = await deps.feedTokens.replace(request.userId, hashSecret(token));
  return { token, createdAt };
}
