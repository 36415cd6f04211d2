// Decisions: docs/decisions/0018-first-admin-setup-token.md
import { hashSecret, type User } from './account.js';
import type { FirstAdminOutcome, PasswordHasher, SessionRepo, SetupRepo } from './ports.js';
import type { RateLimit, RateLimiter } from '../rate-limit.js';
import { checkLocalAccount } from './add-local-user.js';
import { AppError } from '../errors.js';
import { isSetupPending } from './offer-setup-token.js';
import { startSession } from './start-session.js';

const setupDone = () =>
  new AppError('conflict', 'setup_done', 'This instance already has an admin: log in, or ask the operator (kura user add NAME) for an account.');

/**
 * Creates the first admin of a fresh instance, as a local account, with a setup token from the
 * server log, and opens its session. Every attempt counts against the login limit per client
 * address before the token is checked (an attempt that was not a wrong token gives its count
 * back), so a burst of parallel guesses gets no more tries than the limit. Throws `setup_done`,
 * `invalid_setup_token`, `invalid_parameter`, `too_many_requests`.
 */
export async function setUpFirstAdmin(
  deps: { setup: SetupRepo; passwords: PasswordHasher; sessions: SessionRepo; rateLimiter: RateLimiter },
  request: { token: string; username: string; password: string; clientIp: string; rule: RateLimit; admins: ReadonlySet<string> },
): Promise<{ sessionToken: string; user: User }> {
  if (!(await isSetupPending(deps, request.admins))) throw setupDone();
  checkLocalAccount(request.username, request.password);
  const state = await deps.rateLimiter.hit('setup-ip', request.clientIp, request.rule);
  if (!state.allowed) {
    throw new AppError('rate_limited', 'too_many_requests', `Too many wrong setup tokens; try again in ${state.retryAfterSeconds} s.`, state.retryAfterSeconds);
  }
  const result = await createFirstAdmin(deps, request);
  if (result.outcome === 'wrong_token') {
    throw new AppError(
      'forbidden',
      'invalid_setup_token',
      'That is not a setup token of this instance: copy it from the line "No admin account yet" in Kura\'s log.',
    );
  }
  await deps.rateLimiter.refund('setup-ip', request.clientIp);
  if (result.outcome === 'setup_done') throw setupDone();
  return { sessionToken: await startSession(deps, result.user.id), user: result.user };
}

/** The repo's attempt; a failure that is not a wrong token (the database, the hasher) gives its count back. */
async function createFirstAdmin(
  deps: { setup: SetupRepo; passwords: PasswordHasher; rateLimiter: RateLimiter },
  request: { token: string; username: string; password: string; clientIp: string },
): Promise<FirstAdminOutcome> {
  try {
    return await deps.setup.createFirstAdmin(hashSecret(request.token.trim()), request.username, await deps.passwords.hash(request.password));
  } catch (error) {
    await deps.rateLimiter.refund('setup-ip', request.clientIp).catch(() => undefined);
    throw error;
  }
}
