// Decisions: docs/decisions/0003-cors-and-options.md, docs/decisions/0044-live-segments-where-they-are.md, docs/decisions/0120-kura-as-a-service.md
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { parseAccounts, type AccountsConfig } from './accounts.js';
import { parseFollow, type FollowConfig } from './follow.js';
import { parseTrustProxy } from './proxy.js';
import { parseCapture, type CaptureConfig } from './capture.js';
import { parseSearch, type SearchConfig } from './search.js';
import { parseRetention } from './retention.js';
import type { RetentionRules } from '../core/retention/retention-rules.js';
import { ConfigError } from '../shared/config-error.js';
import { envReaders } from './env-readers.js';
import { parseStorage, type S3Config, type StorageConfig } from './storage.js';

/** Which halves of Kura a process runs. */
export type Role = 'all' | 'api' | 'worker';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** `auto`: readable lines on a terminal, JSON lines otherwise. */
export type LogFormat = 'auto' | 'pretty' | 'json';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Base URL viewers reach Kura at, without a trailing slash. */
  readonly publicUrl: string;
  readonly dataDir: string;
  /** As root: where the embedded PostgreSQL goes when the postgres user cannot reach `dataDir` or node_modules. */
  readonly systemDir: string;
  /** Unset: Kura runs its own PostgreSQL in `dataDir/postgres`. */
  readonly databaseUrl: string | undefined;
  /** KURA_DB_POOL_MAX: connections this process's pool may hold (the connection budget: README "Scaling out"). */
  readonly dbPoolMax: number;
  readonly role: Role;
  /** KURA_WORKER_PORT: where a worker serves its own /healthz and /metrics (0: any free port); null: it serves nothing. */
  readonly workerPort: number | null;
  readonly usdPerGbPerMonth: number;
  /** KURA_PUBLIC_READ: anyone may read the archive (true), or only callers with a session, an API token or a feed token (false). */
  readonly publicRead: boolean;
  /** `['*']` allows any origin; empty disables CORS. Default: `*`, or the public URL's origin alone when reading is not public. */
  readonly corsOrigins: readonly string[];
  /** KURA_ORIGINAL_HEADERS: paginated lists also send the original service's `X-Pomu-Pagination-*` headers, for its web client. */
  readonly originalHeaders: boolean;
  /** Reverse proxies (addresses, CIDRs, named ranges) whose X-Forwarded-For is believed; empty: none (KURA_TRUST_PROXY). */
  readonly trustProxy: readonly string[];
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /** Serialized read responses kept per api process; 0 disables the cache. */
  readonly readCacheEntries: number;
  readonly capture: CaptureConfig;
  readonly ffmpegPath: string;
  readonly ffprobePath: string;
  /** yt-dlp, which Kura asks about YouTube videos (details, live state, HLS playlists). */
  /** YTDLP_PATH; null: the yt-dlp Kura's installer put under KURA_SYSTEM_DIR, else `yt-dlp` from the PATH. */
  readonly ytdlpPath: string | null;
  /** KURA_YTDLP_COOKIES: a Netscape cookies.txt handed to the yt-dlp runs that need it (members-only streams, refusals); null: none. */
  readonly ytdlpCookies: string | null;
  /** KURA_YTDLP_AUTO_UPDATE: workers update the yt-dlp Kura installed once a day. */
  readonly ytdlpAutoUpdate: boolean;
  /** KURA_YTDLP_CHANNEL: `stable` releases, or `nightly` ones (PyPI pre-releases), for the installer and the daily update. */
  readonly ytdlpChannel: 'stable' | 'nightly';
  /** KURA_TWITCH_CHAT_URL: Twitch's IRC over WebSocket, where a Twitch stream's chat is read (decision 0137). */
  readonly twitchChatUrl: string;
  /** Let sources on loopback/private addresses be fetched (tests, private deployments). */
  readonly allowPrivateSources: boolean;
  /** KURA_HLS_AUDIO: which separate audio renditions of an HLS variant are recorded beside it, the default one or every language. */
  readonly hlsAudio: 'default' | 'all';
  /** Where archives are kept: `dataDir/archive`, or an S3-compatible bucket. */
  readonly storage: StorageConfig;
  readonly accounts: AccountsConfig;
  readonly search: SearchConfig;
  /** The scheduled `verify-archives` job (KURA_VERIFY_EVERY_DAYS, KURA_VERIFY_GB_PER_HOUR). */
  readonly verify: VerifyConfig;
  /** Followed channels (KURA_FOLLOW_*, KURA_YOUTUBE_FEED_URL, KURA_HOLODEX_URL, HOLODEX_API_KEY, KURA_TWITCH_*). */
  readonly follow: FollowConfig;
  /** The instance's default retention rules (KURA_RETENTION_*); unset: no limit. */
  readonly retention: RetentionRules;
  /** Scheduled backups (KURA_BACKUP_DIR, KURA_BACKUP_KEEP, decision 0122). */
  readonly backup: BackupConfig;
  /** Clips of archives (KURA_CLIP_MAX_SECONDS, KURA_CLIPS_AT_ONCE, KURA_CLIPS_PER_CALLER; decision 0128). */
  readonly clips: ClipConfig;
}

/** How long a clip may be, and how many an api process cuts at once. */
export interface ClipConfig {
  /** The longest clip (default 3600 s). */
  maxSeconds: number;
  /** Clips one api process cuts at once, in all (default 4). */
  atOnce: number;
  /** …and for one caller: a user, or an address without a login (default 1). */
  perCaller: number;
}

/** The daily backup a worker takes. */
export interface BackupConfig {
  /** KURA_BACKUP_DIR: where the daily backups go; null (unset): none are taken. */
  dir: string | null;
  /** KURA_BACKUP_KEEP: the newest this many are kept (default 7). */
  keep: number;
}

/** How much re-checking of stored archives the hourly `verify-archives` run does. */
export interface VerifyConfig {
  /** Every stored archive's existence and size are checked at least this often. */
  everyDays: number;
  /** Bytes read per hourly run to compare sha256s (0: sizes only). */
  bytesPerHour: number;
}

/** Capture engine limits; each is a KURA_* variable documented in .env.example. */

export { ConfigError };
export type { CaptureConfig, S3Config };

/** Documented default: AWS S3 Standard list price (USD per GB-month); set your provider's. */
export const DEFAULT_USD_PER_GB_MONTH = 0.023;
const ROLES: readonly Role[] = ['all', 'api', 'worker'];
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const LOG_FORMATS: readonly LogFormat[] = ['auto', 'pretty', 'json'];
const MAX_READ_CACHE_ENTRIES = 100_000;

type Env = Record<string, string | undefined>;

/**
 * Reads the file `KURA_ENV_FILE` names (the service's /etc/kura/kura.env, which must then exist), or
 * else `.env` if present in `cwd`, under the process environment, which wins.
 * Throws ConfigError naming every invalid variable at once.
 */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const named = env.KURA_ENV_FILE;
  const dotenvPath = named === undefined || named === '' ? path.join(cwd, '.env') : path.resolve(cwd, named);
  if (dotenvPath !== path.join(cwd, '.env') && !existsSync(dotenvPath)) {
    throw new ConfigError([`KURA_ENV_FILE names ${dotenvPath}, which does not exist`]);
  }
  const fromFile = existsSync(dotenvPath) ? parseDotenv(readFileSync(dotenvPath)) : {};
  return parseConfig({ ...fromFile, ...env }, cwd);
}

/** Validates an environment map into a frozen Config. Throws ConfigError. */
export function parseConfig(env: Env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const readers = envReaders(env, problems);
  const { read, integer, oneOf, decimal } = readers;

  const port = integer('PORT', 8080, 0, 65535);
  const host = read('HOST') ?? '127.0.0.1';
  const publicUrl = parsePublicUrl(read('KURA_PUBLIC_URL') ?? `http://localhost:${port}`, problems);
  const publicRead = oneOf('KURA_PUBLIC_READ', ['true', 'false'], 'true') === 'true';
  const corsOrigins = parseCorsOrigins(read('KURA_CORS_ORIGINS') ?? (publicRead ? '*' : originOf(publicUrl)), problems);
  if (!publicRead && corsOrigins.includes('*')) problems.push('KURA_CORS_ORIGINS cannot be "*" when KURA_PUBLIC_READ=false (list origins, or leave it unset)');
  const databaseUrl = read('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// connection URL');
  }
  const usdRaw = read('KURA_USD_PER_GB_MONTH');
  const usdPerGbPerMonth = usdRaw === undefined ? DEFAULT_USD_PER_GB_MONTH : Number(usdRaw);
  if (!Number.isFinite(usdPerGbPerMonth) || usdPerGbPerMonth < 0 || usdRaw === '') {
    problems.push(`KURA_USD_PER_GB_MONTH must be a number of US dollars of 0 or more (got "${usdRaw}")`);
  }

  const config: Config = {
    port,
    host,
    publicUrl,
    dataDir: path.resolve(cwd, read('KURA_DATA_DIR') ?? './data'),
    systemDir: path.resolve(cwd, read('KURA_SYSTEM_DIR') ?? '/var/lib/kura'),
    databaseUrl,
    dbPoolMax: integer('KURA_DB_POOL_MAX', 10, 2, 1000),
    role: oneOf('KURA_ROLE', ROLES, 'all'),
    workerPort: read('KURA_WORKER_PORT') === undefined ? null : integer('KURA_WORKER_PORT', 0, 0, 65535),
    usdPerGbPerMonth,
    publicRead,
    corsOrigins,
    originalHeaders: oneOf('KURA_ORIGINAL_HEADERS', ['true', 'false'], 'false') === 'true',
    trustProxy: parseTrustProxy(read('KURA_TRUST_PROXY'), problems),
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: oneOf('LOG_FORMAT', LOG_FORMATS, 'auto'),
    readCacheEntries: integer('KURA_READ_CACHE_ENTRIES', 1000, 0, MAX_READ_CACHE_ENTRIES),
    capture: parseCapture(read, integer, decimal),
    allowPrivateSources: oneOf('KURA_ALLOW_PRIVATE_SOURCES', ['true', 'false'], 'false') === 'true',
    hlsAudio: oneOf('KURA_HLS_AUDIO', ['default', 'all'], 'default'),
    ffmpegPath: read('FFMPEG_PATH') ?? 'ffmpeg',
    ffprobePath: read('FFPROBE_PATH') ?? 'ffprobe',
    ytdlpPath: read('YTDLP_PATH') ?? null,
    ytdlpAutoUpdate: oneOf('KURA_YTDLP_AUTO_UPDATE', ['true', 'false'], 'true') === 'true',
    ytdlpChannel: oneOf('KURA_YTDLP_CHANNEL', ['stable', 'nightly'], 'stable'),
    ytdlpCookies: read('KURA_YTDLP_COOKIES') ? path.resolve(cwd, read('KURA_YTDLP_COOKIES') as string) : null,
    twitchChatUrl: parseWebSocketUrl('KURA_TWITCH_CHAT_URL', read('KURA_TWITCH_CHAT_URL') ?? 'wss://irc-ws.chat.twitch.tv:443', problems),
    storage: parseStorage(readers, problems, (name, raw) => parseHttpUrl(name, raw, problems)),
    verify: {
      everyDays: integer('KURA_VERIFY_EVERY_DAYS', 30, 1, 3650),
      bytesPerHour: Math.round(decimal('KURA_VERIFY_GB_PER_HOUR', 10, 0, 100_000) * 10 ** 9),
    },
    accounts: parseAccounts(read, integer, problems),
    follow: parseFollow(read, { integer, decimal }, (name, raw) => parseHttpUrl(name, raw, problems), problems, publicUrl),
    retention: parseRetention(read, integer, decimal),
    backup: {
      dir: read('KURA_BACKUP_DIR') === undefined ? null : path.resolve(cwd, read('KURA_BACKUP_DIR') as string),
      keep: integer('KURA_BACKUP_KEEP', 7, 1, 1000),
    },
    clips: {
      maxSeconds: integer('KURA_CLIP_MAX_SECONDS', 3600, 1, 86_400),
      atOnce: integer('KURA_CLIPS_AT_ONCE', 4, 1, 1000),
      perCaller: integer('KURA_CLIPS_PER_CALLER', 1, 1, 1000),
    },
    search: parseSearch(read, problems, (name, raw) => {
      const before = problems.length;
      const url = parseHttpUrl(name, raw, problems);
      return problems.length === before ? url : undefined;
    }),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

function parseHttpUrl(name: string, raw: string, problems: string[]): string {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    return url.href.replace(/\/+$/, '');
  } catch {
    problems.push(`${name} must be an http(s) URL (got "${raw}")`);
    return raw;
  }
}

function parseWebSocketUrl(name: string, raw: string, problems: string[]): string {
  if (/^wss?:\/\/[^/?#\s]+/i.test(raw) && URL.canParse(raw)) return raw;
  problems.push(`${name} must be a ws:// or wss:// URL (got "${raw}")`);
  return raw;
}

function parsePublicUrl(raw: string, problems: string[]): string {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    if (url.search !== '' || url.hash !== '') throw new Error('has query');
    return url.href.replace(/\/+$/, '');
  } catch {
    problems.push(`KURA_PUBLIC_URL must be an http(s) URL without query or fragment (got "${raw}")`);
    return raw;
  }
}

/** The origin of the public URL (itself when it does not parse: that problem is reported already). */
function originOf(publicUrl: string): string {
  return URL.canParse(publicUrl) ? new URL(publicUrl).origin : publicUrl;
}

function parseCorsOrigins(raw: string, problems: string[]): string[] {
  if (raw === 'off') return [];
  const origins = raw
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  for (const origin of origins) {
    if (origin === '*') continue;
    let valid: boolean;
    try {
      valid = new URL(origin).origin === origin;
    } catch {
      valid = false;
    }
    if (!valid) {
      problems.push(`KURA_CORS_ORIGINS must be "*", "off" or comma-separated origins like https://example.org (got "${origin}")`);
    }
  }
  return origins;
}
