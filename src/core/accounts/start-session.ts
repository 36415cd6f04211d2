// Decisions: docs/decisions/0013-logins-sessions-api-tokens.md
import { hashSecret, randomSecret, SESSION_TTL_SECONDS } from './account.js';
import type { SessionRepo } from './ports.js';

/** Opens a 30-day session for a user; returns the token for the cookie (only its hash is stored). */
export async function startSession(deps: { sessions: SessionRepo }, userId: string): Promise<string> {
  const token = randomSecret();
  await deps.sessions.create(hashSecret(token), userId, SESSION_TTL_SECONDS);
  return token;
}
