// Decisions: docs/decisions/0012-users-local-accounts-passwords.md
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';

export type Role = 'user' | 'admin';

/** Who logged in, as a provider vouches for it; `provider` + `providerUserId` is the key. */
export interface Identity {
  provider: string;
  providerUserId: string;
  name: string;
  avatarUrl: string | null;
}

export interface User extends Identity {
  /** Kura's own row id, never shown in the API (tokens and sessions point at it). */
  id: string;
  /** The stored role; `KURA_ADMINS` may raise it (see `roleOf`). */
  role: Role;
}

/** The caller of a request, once its session cookie or bearer token checked out. */
export interface Caller {
  user: User;
  role: Role;
  /** Cookie callers are held to the same-origin rule on state changes; bearer callers are not. */
  via: 'session' | 'token';
}

/** Local accounts are keyed by their name under this provider: submitters read `local/<name>`. */
export const LOCAL_PROVIDER = 'local';
/** A local account name: what `kura user add NAME` and `POST /auth/local` take. */
export const LOCAL_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';
export const SESSION_TTL_SECONDS = 30 * 86_400;
/** A session's expiry is pushed forward at most this often, so reads do not write on every request. */
export const SESSION_REFRESH_SECONDS = 3600;

/** How a user appears among submitters and in `KURA_ADMINS`: `provider/userId`. */
export function submitterOf(identity: Pick<Identity, 'provider' | 'providerUserId'>): string {
  return `${identity.provider}/${identity.providerUserId}`;
}

/** The effective role: stored admin, or listed in `KURA_ADMINS`. */
export function roleOf(user: User, admins: ReadonlySet<string>): Role {
  return user.role === 'admin' || admins.has(submitterOf(user)) ? 'admin' : 'user';
}

/** Throws `admin_only` unless the caller is an admin. */
export function requireAdmin(caller: Caller): void {
  if (caller.role !== 'admin') throw new AppError('forbidden', 'admin_only', 'Only an admin of this instance may do this.');
}

/** 256 random bits, URL-safe: session tokens, login attempt ids, state, PKCE verifiers, nonces. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored of a secret: its SHA-256 (secrets are random 256-bit values, so no salt is needed). */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** Compares two strings in constant time (for equal lengths; a length difference returns false at once). */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Where a login may send the browser afterwards: a path of this instance only. Anything else —
 * another origin, `//host`, a backslash trick, a scheme — becomes `/`.
 */
export function safeNextPath(next: string | undefined): string {
  if (next === undefined || !next.startsWith('/') || next.startsWith('//') || /[\\\s]/.test(next)) return '/';
  const base = 'http://instance.invalid';
  try {
    const url = new URL(next, base);
    return url.origin === base ? `${url.pathname}${url.search}${url.hash}` : '/';
  } catch {
    return '/';
  }
}
