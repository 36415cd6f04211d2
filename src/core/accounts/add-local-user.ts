// Decisions: docs/decisions/0012-users-local-accounts-passwords.md
import { LOCAL_NAME_PATTERN, type Role, type User } from './account.js';
import type { PasswordHasher, UserRepo } from './ports.js';
import { AppError } from '../errors.js';

export const MIN_PASSWORD_LENGTH = 8;
const MAX_PASSWORD_LENGTH = 1024;

/**
 * Creates a local account, or sets an existing one's password and role (the operator's reset).
 * Throws `invalid_parameter` for a bad name or a password shorter than 8 characters.
 */
export async function addLocalUser(
  deps: { users: UserRepo; passwords: PasswordHasher },
  request: { name: string; password: string; role: Role },
): Promise<User> {
  checkLocalAccount(request.name, request.password);
  return deps.users.saveLocal(request.name, await deps.passwords.hash(request.password), request.role);
}

/** Throws `invalid_parameter` unless the name and password are acceptable for a local account. */
export function checkLocalAccount(name: string, password: string): void {
  if (!new RegExp(LOCAL_NAME_PATTERN).test(name)) {
    throw new AppError('invalid', 'invalid_parameter', 'A user name is 1–64 letters, digits, ".", "_" or "-".');
  }
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new AppError('invalid', 'invalid_parameter', `A password is ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.`);
  }
}
