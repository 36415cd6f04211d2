// Decisions: docs/decisions/0018-first-admin-setup-token.md
import { randomBytes } from 'node:crypto';
import { hashSecret } from './account.js';
import type { SetupRepo } from './ports.js';

/** Whether the instance still waits for its first admin: none is stored and `KURA_ADMINS` names nobody. */
export async function isSetupPending(deps: { setup: SetupRepo }, admins: ReadonlySet<string>): Promise<boolean> {
  return admins.size === 0 && !(await deps.setup.hasAdmin());
}

/**
 * At an api process's start: while the instance has no admin, a new one-time setup token for
 * `POST /auth/setup` (only its hash is stored; other processes' tokens stay good); otherwise
 * null, and any token left from earlier starts is forgotten.
 */
export async function offerSetupToken(deps: { setup: SetupRepo }, request: { admins: ReadonlySet<string> }): Promise<string | null> {
  if (!(await isSetupPending(deps, request.admins))) {
    await deps.setup.clearTokens();
    return null;
  }
  // 128 random bits in hex: easy to copy from a terminal, and guessing is rate-limited
  const token = randomBytes(16).toString('hex');
  await deps.setup.addToken(hashSecret(token));
  return token;
}
