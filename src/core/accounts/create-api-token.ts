import { hashSecret, randomSecret } from './account.js';
import type { ApiTokenInfo, ApiTokenRepo } from './ports.js';

/** Prefix of Kura's API tokens, so a leaked one is recognisable (secret scanners, logs). */
const TOKEN_PREFIX = 'kura_';

/** Creates an API token for a user; the secret is returned this once, only its hash is kept. */
export async function createApiToken(deps: { apiTokens: ApiTokenRepo }, request: { userId: string; name: string }): Promise<ApiTokenInfo & { token: string }> {
  const token = `${TOKEN_PREFIX}${randomSecret()}`;
  const info = await deps.apiTokens.create(request.userId, request.name, hashSecret(token));
  return { ...info, token };
}
