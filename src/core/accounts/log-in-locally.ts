// Decisions: docs/decisions/0012-users-local-accounts-passwords.md, docs/decisions/0017-login-limits.md
import type { User } from './account.js';
import type { PasswordHasher, SessionRepo, UserRepo, WarnLog } from './ports.js';
import type { RateLimit, RateLimiter } from '../rate-limit.js';
import { AppError } from '../errors.js';
import { startSession } from './start-session.js';

/** A hash of a password nobody has, checked for unknown names so they take as long as known ones. */
const NO_SUCH_USER_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

const tooMany = (why: string, retryAfterSeconds: number) =>
  new AppError('rate_limited', 'too_many_requests', `Too many failed logins ${why}; try again in ${retryAfterSeconds} s.`, retryAfterSeconds);

/**
 * Logs a local account in with its password and opens a session. Attempts are counted per client
 * address before the password is checked (a success gives its count back, so a burst of parallel
 * guesses cannot pass the limit), failures per account name too, in PostgreSQL (shared by every
 * api process). An address past `rule` is refused. An account past `rule` is locked only against
 * addresses with another attempt in the window: from any other its password is still checked, so
 * its owner gets in while each address of an attacker has one guess at most. Refusals and logins
 * through a locked account are logged. Throws `invalid_credentials`, `too_many_requests`.
 */
export async function logInLocally(
  deps: { users: UserRepo; sessions: SessionRepo; passwords: PasswordHasher; rateLimiter: RateLimiter; log: WarnLog },
  request: { username: string; password: string; clientIp: string; rule: RateLimit },
): Promise<{ sessionToken: string; user: User }> {
  const who = { username: request.username, ip: request.clientIp };
  const account = request.username.toLowerCase();
  const byAddress = await deps.rateLimiter.hit('login-ip', request.clientIp, request.rule);
  if (!byAddress.allowed) {
    deps.log.warn(who, 'login refused: too many failed logins from this address');
    throw tooMany('from this address', byAddress.retryAfterSeconds);
  }
  const byAccount = await deps.rateLimiter.peek('login-name', account, request.rule);
  const locked = !byAccount.allowed;
  if (locked && byAddress.hits > 1) {
    deps.log.warn(who, 'login refused: the account is locked by failed logins, and this address tried already');
    throw tooMany('for this account', byAccount.retryAfterSeconds);
  }
  const found = await deps.users.findLocal(request.username);
  const valid = await deps.passwords.verify(request.password, found?.passwordHash ?? NO_SUCH_USER_HASH);
  if (found === null || !valid) {
    await deps.rateLimiter.hit('login-name', account, request.rule);
    throw new AppError('unauthorized', 'invalid_credentials', 'The user name or the password is wrong.');
  }
  await deps.rateLimiter.refund('login-ip', request.clientIp);
  // a login through the lock leaves the lock in place: whoever caused it is still refused
  if (locked) deps.log.warn(who, 'login let through a locked account: the right password, from an address with no other attempt');
  else await deps.rateLimiter.reset('login-name', account);
  return { sessionToken: await startSession(deps, found.user.id), user: found.user };
}
