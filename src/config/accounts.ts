// Decisions: docs/decisions/0012-users-local-accounts-passwords.md
import type { RateLimit } from '../core/rate-limit.js';
import { PLATFORMS, SUBMITTER_PATTERN, type Platform } from '../core/vocabulary.js';

// The accounts slice of the configuration, parsed by src/config.ts from the environment it read.

export type OAuthProviderName = 'discord' | 'google' | 'twitch' | 'github';
const OAUTH_PROVIDERS: readonly OAuthProviderName[] = ['discord', 'google', 'twitch', 'github'];

/** Login providers (each on when its slice is set), roles, and what users may submit and how often. */
export interface AccountsConfig {
  oauth: Partial<Record<OAuthProviderName, { clientId: string; clientSecret: string }>>;
  oidc: { issuer: string; clientId: string; clientSecret: string; name: string } | undefined;
  /** `provider/userId` of admins beside local accounts made with `--admin`. */
  admins: readonly string[];
  sources: readonly Platform[];
  /** Empty: every channel. */
  allowedChannels: readonly string[];
  submitLimit: RateLimit;
  lookupLimit: RateLimit;
  loginLimit: RateLimit;
}

type Read = (name: string) => string | undefined;

/** The accounts slice of the environment; problems are added to `problems`. */
export function parseAccounts(read: Read, integer: (name: string, fallback: number, min: number, max: number) => number, problems: string[]): AccountsConfig {
  const oauth: AccountsConfig['oauth'] = {};
  for (const provider of OAUTH_PROVIDERS) {
    const prefix = provider.toUpperCase();
    const clientId = read(`${prefix}_CLIENT_ID`);
    const clientSecret = read(`${prefix}_CLIENT_SECRET`);
    if (clientId !== undefined && clientSecret !== undefined) oauth[provider] = { clientId, clientSecret };
    else if ((clientId ?? clientSecret) !== undefined) problems.push(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET are set together (or neither)`);
  }
  const list = (name: string) =>
    (read(name) ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
  const admins = list('KURA_ADMINS');
  for (const admin of admins.filter((a) => !new RegExp(SUBMITTER_PATTERN).test(a)))
    problems.push(`KURA_ADMINS must list provider/userId entries like discord/1234 (got "${admin}")`);
  const isPlatform = (source: string): source is Platform => (PLATFORMS as readonly string[]).includes(source);
  const sources = read('KURA_SOURCES') === undefined ? [...PLATFORMS] : list('KURA_SOURCES');
  for (const source of sources.filter((s) => !isPlatform(s))) problems.push(`KURA_SOURCES must list some of ${PLATFORMS.join(', ')} (got "${source}")`);
  return {
    oauth,
    oidc: parseOidc(read, problems),
    admins,
    sources: sources.filter(isPlatform),
    allowedChannels: list('KURA_ALLOWED_CHANNELS'),
    submitLimit: { limit: integer('KURA_SUBMIT_RATE_LIMIT', 20, 1, 1_000_000), windowSeconds: 3600 },
    lookupLimit: { limit: integer('KURA_LOOKUP_RATE_LIMIT', 60, 1, 1_000_000), windowSeconds: 60 },
    loginLimit: { limit: integer('KURA_LOGIN_RATE_LIMIT', 10, 1, 1_000_000), windowSeconds: 900 },
  };
}

function parseOidc(read: Read, problems: string[]): AccountsConfig['oidc'] {
  const [issuer, clientId, clientSecret] = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'].map(read);
  if (issuer === undefined && clientId === undefined && clientSecret === undefined) return undefined;
  if (issuer === undefined || clientId === undefined || clientSecret === undefined) {
    problems.push('OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set together (or none of them)');
    return undefined;
  }
  // plain http only to the same machine (a provider in a test or beside Kura), never across a network
  const url = URL.canParse(issuer) ? new URL(issuer) : null;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url?.hostname ?? '');
  if (!(url?.protocol === 'https:' || (url?.protocol === 'http:' && loopback))) {
    problems.push(`OIDC_ISSUER must be an https URL (http only on localhost) (got "${issuer}")`);
  }
  return { issuer, clientId, clientSecret, name: read('OIDC_NAME') ?? 'OpenID Connect' };
}
