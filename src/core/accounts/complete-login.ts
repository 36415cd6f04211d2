// Decisions: docs/decisions/0013-logins-sessions-api-tokens.md
import { hashSecret, sameSecret } from './account.js';
import type { LoginAttemptRepo, LoginProvider, SessionRepo, UserRepo } from './ports.js';
import { AppError } from '../errors.js';
import { startSession } from './start-session.js';

/**
 * Finishes a login at a provider's callback: the attempt is taken (so a replayed callback finds
 * nothing), its state must match the callback's, and the provider checks the code with the PKCE
 * verifier (and the ID token's nonce). The user is created or refreshed and a session opened.
 * Throws `provider_not_found`, `login_failed`.
 */
export async function completeLogin(
  deps: { providers: ReadonlyMap<string, LoginProvider>; loginAttempts: LoginAttemptRepo; users: UserRepo; sessions: SessionRepo },
  request: { provider: string; attemptId: string | undefined; callbackUrl: URL },
): Promise<{ sessionToken: string; nextPath: string }> {
  const provider = deps.providers.get(request.provider);
  if (provider === undefined) throw new AppError('not_found', 'provider_not_found', `No login provider "${request.provider}" is enabled here.`);
  const failed = (why: string) => new AppError('invalid', 'login_failed', `The login did not complete: ${why}. Start again from the login page.`);
  const error = request.callbackUrl.searchParams.get('error');
  if (error !== null) throw failed(`${provider.name} answered "${error.slice(0, 100)}"`);
  if (request.attemptId === undefined) throw failed('this browser started no login (its login cookie is missing)');
  const attempt = await deps.loginAttempts.take(hashSecret(request.attemptId));
  if (attempt === null) throw failed('the login expired or was already used');
  if (attempt.provider !== provider.id) throw failed('the login was started at another provider');
  if (!sameSecret(request.callbackUrl.searchParams.get('state') ?? '', attempt.state)) throw failed('the state does not match');
  let identity;
  try {
    identity = await provider.identify(request.callbackUrl, attempt);
  } catch (cause) {
    throw failed(`${provider.name} refused the code (${(cause as Error).message})`);
  }
  if (!/^[^\s/]{1,128}$/.test(identity.providerUserId)) throw failed(`${provider.name} gave a user id Kura cannot key users by`);
  const user = await deps.users.upsertIdentity(identity);
  return { sessionToken: await startSession(deps, user.id), nextPath: attempt.nextPath };
}
