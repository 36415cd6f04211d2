import type { Logger } from 'pino';
import type pg from 'pg';
import { createOAuthProvider } from '../adapters/auth/oauth-providers.js';
import { createOidcProvider } from '../adapters/auth/oidc-provider.js';
import { createScryptPasswords } from '../adapters/auth/scrypt-passwords.js';
import { createAdminActionRepo } from '../adapters/db/admin-action-repo.js';
import { createApiTokenRepo } from '../adapters/db/api-token-repo.js';
import { createFeedTokenRepo } from '../adapters/db/feed-token-repo.js';
import { createLoginAttemptRepo } from '../adapters/db/login-attempt-repo.js';
import { createRateLimiter } from '../adapters/db/rate-limiter.js';
import { createSessionRepo } from '../adapters/db/session-repo.js';
import { createSetupRepo } from '../adapters/db/setup-repo.js';
import { createUserRepo } from '../adapters/db/user-repo.js';
import { createSubmissionSource } from '../adapters/sources/submission-policy.js';
import type { Config } from '../config/config.js';
import type { LoginProvider, SetupRepo } from '../core/accounts/ports.js';
import { offerSetupToken } from '../core/accounts/offer-setup-token.js';
import type { AccountDeps } from '../http/auth/account-deps.js';
import type { Sources } from './sources.js';

/** The account repositories and the password hasher on one database: the api's and the CLI's alike. */
export type AccountStores = Pick<
  AccountDeps,
  'users' | 'sessions' | 'apiTokens' | 'feedTokens' | 'loginAttempts' | 'rateLimiter' | 'passwords' | 'adminActions' | 'setup'
>;

export function createAccountStores(pool: pg.Pool): AccountStores {
  return {
    users: createUserRepo(pool),
    sessions: createSessionRepo(pool),
    apiTokens: createApiTokenRepo(pool),
    feedTokens: createFeedTokenRepo(pool),
    loginAttempts: createLoginAttemptRepo(pool),
    rateLimiter: createRateLimiter(pool),
    passwords: createScryptPasswords(),
    adminActions: createAdminActionRepo(pool),
    setup: createSetupRepo(pool),
  };
}

/** The login providers whose env slice is set, by id. */
export function createLoginProviders(config: Pick<Config, 'accounts' | 'publicUrl'>): Map<string, LoginProvider> {
  const providers = new Map<string, LoginProvider>();
  for (const [id, credentials] of Object.entries(config.accounts.oauth)) {
    providers.set(id, createOAuthProvider(id as keyof typeof config.accounts.oauth, credentials, config.publicUrl));
  }
  if (config.accounts.oidc !== undefined) providers.set('oidc', createOidcProvider(config.accounts.oidc, config.publicUrl));
  return providers;
}

/** Accounts, sessions, tokens, submission (on the process's `sources`) and admin actions on this database. */
export function createAccountDeps(config: Config, pool: pg.Pool, sources: Sources): AccountDeps {
  const { accounts } = config;
  return {
    ...createAccountStores(pool),
    providers: createLoginProviders(config),
    submissionSource: createSubmissionSource(sources.source, { sources: accounts.sources, allowedChannels: accounts.allowedChannels }),
    settings: { admins: new Set(accounts.admins), submitLimit: accounts.submitLimit, lookupLimit: accounts.lookupLimit, loginLimit: accounts.loginLimit },
  };
}

/** While the instance has no admin, logs how to make the first one, with a new one-time setup token. */
export async function announceSetup(config: Pick<Config, 'accounts' | 'publicUrl'>, setup: SetupRepo, log: Logger): Promise<void> {
  const token = await offerSetupToken({ setup }, { admins: new Set(config.accounts.admins) });
  if (token === null) return;
  log.warn(
    `No admin account yet: open ${config.publicUrl}/login and enter the setup token ${token}, or run: printf '%s' "$PASSWORD" | npx kura user add NAME --admin`,
  );
}
