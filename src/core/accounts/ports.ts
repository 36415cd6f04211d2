import type { Identity, Role, User } from './account.js';

export interface UserRepo {
  /** Creates the user of an identity, or refreshes its name and avatar; notes the login. */
  upsertIdentity(identity: Identity): Promise<User>;
  find(provider: string, providerUserId: string): Promise<User | null>;
  /** A local account with its password hash, for logging in. */
  findLocal(name: string): Promise<{ user: User; passwordHash: string } | null>;
  /** Creates a local account or replaces its password and role. */
  saveLocal(name: string, passwordHash: string, role: Role): Promise<User>;
}

export interface SessionRepo {
  create(tokenHash: Buffer, userId: string, ttlSeconds: number): Promise<void>;
  /**
   * The user of an unexpired session; its expiry slides to `ttlSeconds` from now when it was last
   * pushed more than `refreshSeconds` ago (`refreshed` says so, and the cookie is set again).
   */
  use(tokenHash: Buffer, ttlSeconds: number, refreshSeconds: number): Promise<{ user: User; refreshed: boolean } | null>;
  delete(tokenHash: Buffer): Promise<void>;
}

export interface ApiTokenInfo {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface ApiTokenRepo {
  /**
   * Stores a token while the user has fewer than `perUser` (counted and inserted under a lock on
   * the user, so creations in parallel cannot pass it); null when not.
   */
  create(userId: string, name: string, tokenHash: Buffer, perUser: number): Promise<ApiTokenInfo | null>;
  list(userId: string): Promise<ApiTokenInfo[]>;
  /** False when the user has no such token. */
  delete(userId: string, id: string): Promise<boolean>;
  /** The owner of a token, noting its use. */
  use(tokenHash: Buffer): Promise<User | null>;
}

/** When a user's feed token was made and last used; its secret is never kept. */
export interface FeedTokenInfo {
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** Each user's one feed token (reads feeds and downloads of a private instance), kept as its hash. */
export interface FeedTokenRepo {
  /** Stores the user's feed token in place of the one they had; returns when it was made. */
  replace(userId: string, tokenHash: Buffer): Promise<Date>;
  /** The user's feed token, or null when they never made one. */
  find(userId: string): Promise<FeedTokenInfo | null>;
  /** The owner of a feed token, noting its use; null when no user has it. */
  use(tokenHash: Buffer): Promise<User | null>;
}

/** What a login at an external provider must find again at its callback. */
export interface LoginAttempt {
  provider: string;
  state: string;
  codeVerifier: string;
  nonce: string;
  nextPath: string;
}

export interface LoginAttemptRepo {
  save(idHash: Buffer, attempt: LoginAttempt, ttlSeconds: number): Promise<void>;
  /** Removes and returns an unexpired attempt: a callback can use it once. */
  take(idHash: Buffer): Promise<LoginAttempt | null>;
}

/** Where use cases report what an operator should see (the server log); pino's logger fits. */
export interface WarnLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Constant-time comparison; false for a malformed hash. */
  verify(password: string, hash: string): Promise<boolean>;
}

/** An external login provider (OAuth 2 with PKCE, or OpenID Connect). */
export interface LoginProvider {
  /** Route segment and stored provider name: `discord`, `google`, `twitch`, `github`, `oidc`. */
  id: string;
  /** What the login button says. */
  name: string;
  /** The provider's authorize URL for this attempt (state, PKCE challenge, nonce where it applies). */
  authorizationUrl(attempt: LoginAttempt): Promise<URL>;
  /** Exchanges the callback's code (PKCE verifier, nonce checked) for the identity; rejects on any mismatch. */
  identify(callbackUrl: URL, attempt: LoginAttempt): Promise<Identity>;
}

/** What admins did, kept for good. */
export interface AdminActionRepo {
  /** Deletes the record (submitters, captures and downloads go with it) and notes why, in one transaction. */
  takeDown(livestreamId: string, admin: string, reason: string): Promise<boolean>;
  /** Notes a takedown to complete once the record's capture has ended (the first request's admin and reason are kept). */
  requestTakeDown(livestreamId: string, admin: string, reason: string): Promise<void>;
  note(action: 'cancel' | 'retry', livestreamId: string, admin: string, reason: string): Promise<void>;
}

/** Removes what expired: sessions, login attempts, rate-limit windows. Returns how many rows went. */
export interface ExpiredPurger {
  purgeExpired(): Promise<number>;
}

/** What creating the first admin with a setup token came to. */
export type FirstAdminOutcome = { outcome: 'created'; user: User } | { outcome: 'setup_done' } | { outcome: 'wrong_token' };

/** The first-run setup of a fresh instance: one-time tokens, kept as hashes, good while no admin exists. */
export interface SetupRepo {
  /** Whether a stored account has the admin role. */
  hasAdmin(): Promise<boolean>;
  addToken(tokenHash: Buffer): Promise<void>;
  /** Forgets every setup token (an admin exists). */
  clearTokens(): Promise<void>;
  /**
   * In one transaction, one at a time across processes: unless an admin exists, and if the token
   * is stored, saves the local admin account (as `saveLocal` does) and forgets every token.
   */
  createFirstAdmin(tokenHash: Buffer, name: string, passwordHash: string): Promise<FirstAdminOutcome>;
}
