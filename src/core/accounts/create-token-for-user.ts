import type { ApiTokenInfo, ApiTokenRepo, UserRepo } from './ports.js';
import { createApiToken } from './create-api-token.js';
import { AppError } from '../errors.js';

/**
 * The operator creates an API token for an existing user (`kura token create`); the secret is
 * returned this once. Throws `user_not_found` when no user has this provider and id.
 */
export async function createTokenForUser(
  deps: { users: UserRepo; apiTokens: ApiTokenRepo },
  request: { provider: string; userId: string; name: string },
): Promise<ApiTokenInfo & { token: string }> {
  const user = await deps.users.find(request.provider, request.userId);
  if (user === null) {
    throw new AppError(
      'not_found',
      'user_not_found',
      `There is no user ${request.provider}/${request.userId}; a user exists once it has logged in (or was added with kura user add).`,
    );
  }
  return createApiToken(deps, { userId: user.id, name: request.name });
}
