import type { Caller } from '../../core/accounts/account.js';
import type {
  AdminActionRepo,
  ApiTokenRepo,
  FeedTokenRepo,
  LoginAttemptRepo,
  LoginProvider,
  PasswordHasher,
  SessionRepo,
  SetupRepo,
  UserRepo,
} from '../../core/accounts/ports.js';
import type { RateLimit, RateLimiter } from '../../core/rate-limit.js';
import type { StreamSource } from '../../core/sources/ports.js';

/**
 * Ports and settings of accounts, submission and admin actions, as the composition root wires them:
 * buildApp hands each route plugin the fields it uses (its `…RouteDeps`).
 */
export interface AccountDeps {
  users: UserRepo;
  sessions: SessionRepo;
  apiTokens: ApiTokenRepo;
  /** Each user's feed token: reads feeds and downloads of a private instance (KURA_PUBLIC_READ=false). */
  feedTokens: FeedTokenRepo;
  loginAttempts: LoginAttemptRepo;
  rateLimiter: RateLimiter;
  passwords: PasswordHasher;
  adminActions: AdminActionRepo;
  /** First-run setup tokens (POST /auth/setup). */
  setup: SetupRepo;
  /** Enabled external login providers by id. */
  providers: ReadonlyMap<string, LoginProvider>;
  /** Sources as users may submit them: the operator's rules applied (KURA_SOURCES, channels, private targets). */
  submissionSource: StreamSource;
  settings: AccountSettings;
}

/** The operator's account rules: who is admin, and how often submissions, lookups and logins may come. */
export interface AccountSettings {
  /** `provider/userId` of admins (KURA_ADMINS). */
  admins: ReadonlySet<string>;
  submitLimit: RateLimit;
  lookupLimit: RateLimit;
  loginLimit: RateLimit;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication guard once it resolved the caller. */
    caller: Caller | null;
  }
}
