import type { User } from './account.js';
import type { PasswordHasher, RateLimit, RateLimiter, SessionRepo, UserRepo } from './account-ports.js';
import { AppError } from './errors.js';
import { startSession } from './start-session.js';

/** A hash of a password nobody has, checked for unknown names so they take as long as known ones. */
const NO_SUCH_USER_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/**
 * Logs a local account in with its password and opens a session. Failed attempts are counted per
 * account name and per client address (in PostgreSQL, shared by every api process); past `rule`
 * they are refused until the window ends. Throws `invalid_credentials`, `too_many_requests`.
 */
export async function logInLocally(
  deps: { users: UserRepo; sessions: SessionRepo; passwords: PasswordHasher; rateLimiter: RateLimiter },
  request: { username: string; password: string; clientIp: string; rule: RateLimit },
): Promise<{ sessionToken: string; user: User }> {
  const keys: Array<[string, string]> = [
    ['login-name', request.username.toLowerCase()],
    ['login-ip', request.clientIp],
  ];
  for (const [bucket, key] of keys) {
    const state = await deps.rateLimiter.peek(bucket, key, request.rule);
    if (!state.allowed) {
      throw new AppError('rate_limited', 'too_many_requests', `Too many failed logins; try again in ${state.retryAfterSeconds} s.`, state.retryAfterSeconds);
    }
  }
  const account = await deps.users.findLocal(request.username);
  const valid = await deps.passwords.verify(request.password, account?.passwordHash ?? NO_SUCH_USER_HASH);
  if (account === null || !valid) {
    for (const [bucket, key] of keys) await deps.rateLimiter.hit(bucket, key, request.rule);
    throw new AppError('unauthorized', 'invalid_credentials', 'The user name or the password is wrong.');
  }
  await deps.rateLimiter.reset('login-name', request.username.toLowerCase());
  return { sessionToken: await startSession(deps, account.user.id), user: account.user };
}
