import { hashSecret, type User } from './account.js';
import type { PasswordHasher, RateLimit, RateLimiter, SessionRepo, SetupRepo } from './ports.js';
import { checkLocalAccount } from './add-local-user.js';
import { AppError } from '../errors.js';
import { isSetupPending } from './offer-setup-token.js';
import { startSession } from './start-session.js';

const setupDone = () =>
  new AppError('conflict', 'setup_done', 'This instance already has an admin: log in, or ask the operator (kura user add NAME) for an account.');

/**
 * Creates the first admin of a fresh instance, as a local account, with a setup token from the
 * server log, and opens its session. Wrong tokens count against the login limit per client
 * address. Throws `setup_done`, `invalid_setup_token`, `invalid_parameter`, `too_many_requests`.
 */
export async function setUpFirstAdmin(
  deps: { setup: SetupRepo; passwords: PasswordHasher; sessions: SessionRepo; rateLimiter: RateLimiter },
  request: { token: string; username: string; password: string; clientIp: string; rule: RateLimit; admins: ReadonlySet<string> },
): Promise<{ sessionToken: string; user: User }> {
  if (!(await isSetupPending(deps, request.admins))) throw setupDone();
  const state = await deps.rateLimiter.peek('setup-ip', request.clientIp, request.rule);
  if (!state.allowed) {
    throw new AppError('rate_limited', 'too_many_requests', `Too many wrong setup tokens; try again in ${state.retryAfterSeconds} s.`, state.retryAfterSeconds);
  }
  checkLocalAccount(request.username, request.password);
  const result = await deps.setup.createFirstAdmin(hashSecret(request.token.trim()), request.username, await deps.passwords.hash(request.password));
  if (result.outcome === 'setup_done') throw setupDone();
  if (result.outcome === 'wrong_token') {
    await deps.rateLimiter.hit('setup-ip', request.clientIp, request.rule);
    throw new AppError(
      'forbidden',
      'invalid_setup_token',
      'That is not a setup token of this instance: copy it from the line "No admin account yet" in Kura\'s log.',
    );
  }
  return { sessionToken: await startSession(deps, result.user.id), user: result.user };
}
