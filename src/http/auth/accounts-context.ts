import type { Caller } from '../../core/accounts/account.js';
import type {
  AdminActionRepo,
  ApiTokenRepo,
  LoginAttemptRepo,
  LoginProvider,
  PasswordHasher,
  SessionRepo,
  SetupRepo,
  UserRepo,
} from '../../core/accounts/ports.js';
import type { Scheduler } from '../../core/livestream/ports.js';
import type { RateLimit, RateLimiter } from '../../core/rate-limit.js';
import type { StreamSource } from '../../core/sources/ports.js';

/** Ports and settings of accounts, submission and admin actions, as the composition root wires them. */
export interface AccountDeps {
  users: UserRepo;
  sessions: SessionRepo;
  apiTokens: ApiTokenRepo;
  loginAttempts: LoginAttemptRepo;
  rateLimiter: RateLimiter;
  passwords: PasswordHasher;
  adminActions: AdminActionRepo;
  /** First-run setup tokens (POST /auth/setup). */
  setup: SetupRepo;
  /** Enabled external login providers by id. */
  providers: ReadonlyMap<string, LoginProvider>;
  scheduler: Scheduler;
  /** Sources as users may submit them: the operator's rules applied (KURA_SOURCES, channels, private targets). */
  submissionSource: StreamSource;
  settings: AccountSettings;
}

export interface AccountSettings {
  /** `provider/userId` of admins (KURA_ADMINS). */
  admins: ReadonlySet<string>;
  submitLimit: RateLimit;
  lookupLimit: RateLimit;
  loginLimit: RateLimit;
}

/**
 * What each route plugin takes of AccountDeps, and nothing more: the one place the whole object
 * is taken apart. A plugin's deps type is its entry here (`AccountSlices['auth']`).
 */
export function sliceAccounts(accounts: AccountDeps) {
  const { users, sessions, apiTokens, loginAttempts, rateLimiter, passwords, adminActions, setup, providers, scheduler, submissionSource, settings } = accounts;
  const { admins, submitLimit, lookupLimit, loginLimit } = settings;
  return {
    guard: { sessions, apiTokens, settings: { admins } },
    auth: { providers, loginAttempts, users, sessions, setup, settings: { admins } },
    localAuth: { users, sessions, passwords, rateLimiter, settings: { admins, loginLimit } },
    setup: { setup, passwords, sessions, rateLimiter, settings: { admins, loginLimit } },
    sources: { submissionSource, rateLimiter, settings: { lookupLimit } },
    user: { users },
    tokens: { apiTokens },
    submit: { scheduler, submissionSource, rateLimiter, settings: { submitLimit } },
    videoAdmin: { scheduler, adminActions },
  };
}

export type AccountSlices = ReturnType<typeof sliceAccounts>;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication guard once it resolved the caller. */
    caller: Caller | null;
  }
}
