// Decisions: docs/decisions/0013-logins-sessions-api-tokens.md
import { hashSecret, randomSecret, safeNextPath } from './account.js';
import type { LoginAttemptRepo, LoginProvider } from './ports.js';
import { AppError } from '../errors.js';

/** A login at a provider has this long between its redirect and its callback. */
export const LOGIN_ATTEMPT_TTL_SECONDS = 600;

/**
 * Starts a login at an external provider: fresh state, PKCE verifier and nonce are kept in
 * PostgreSQL under a random attempt id (for the browser's cookie), so any api process can finish
 * it. Throws `provider_not_found`.
 */
export async function beginLogin(
  deps: { providers: ReadonlyMap<string, LoginProvider>; loginAttempts: LoginAttemptRepo },
  request: { provider: string; next?: string },
): Promise<{ attemptId: string; redirectTo: URL }> {
  const provider = deps.providers.get(request.provider);
  if (provider === undefined) throw new AppError('not_found', 'provider_not_found', `No login provider "${request.provider}" is enabled here.`);
  const attempt = { provider: provider.id, state: randomSecret(), codeVerifier: randomSecret(), nonce: randomSecret(), nextPath: safeNextPath(request.next) };
  const attemptId = randomSecret();
  await deps.loginAttempts.save(hashSecret(attemptId), attempt, LOGIN_ATTEMPT_TTL_SECONDS);
  return { attemptId, redirectTo: await provider.authorizationUrl(attempt) };
}
