// Decisions: docs/decisions/0013-logins-sessions-api-tokens.md
import { hashSecret, randomSecret } from './account.js';
import type { ApiTokenInfo, ApiTokenRepo } from './ports.js';
import { AppError } from '../errors.js';

/** Prefix of Kura's API tokens, so a leaked one is recognisable (secret scanners, logs). */
const TOKEN_PREFIX = 'kura_';

/** How many API tokens one user may have at once (they never expire: one is revoked to make room). */
export const API_TOKEN_LIMIT = 50;

/**
 * Creates an API token for a user; the secret is returned this once, only its hash is kept. A
 * user has API_TOKEN_LIMIT at most (the repo refuses more, even in parallel).
 * Throws `token_limit_reached`.
 */
export async function createApiToken(deps: { apiTokens: ApiTokenRepo }, request: { userId: string; name: string }): Promise<ApiTokenInfo & { token: string }> {
  const token = `${TOKEN_PREFIX}${randomSecret()}`;
  const info = await deps.apiTokens.create(request.userId, request.name, hashSecret(token), API_TOKEN_LIMIT);
  if (info === null) {
    throw new AppError('conflict', 'token_limit_reached', `The user has ${API_TOKEN_LIMIT} API tokens already (the most one may have); revoke one first.`);
  }
  return { ...info, token };
}
