import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import type pg from 'pg';
import { createHlsRecorder } from './adapters/capture/hls-recorder.js';
import { createFfmpegTools } from './adapters/media/ffmpeg-tools.js';
import { createSpool, freeBytes } from './adapters/capture/spool.js';
import { createCaptureRepo } from './adapters/db/capture-repo.js';
import { listenForChanges, type ClosableChangeFeed } from './adapters/db/change-listener.js';
import { startEmbeddedPostgres } from './adapters/db/embedded-postgres.js';
import { createLivestreamRepo } from './adapters/db/livestream-repo.js';
import { createSweepRepo } from './adapters/db/sweep-repo.js';
import { migrate } from './adapters/db/migrator.js';
import { assertSupportedServer, createPool, isReachable } from './adapters/db/pool.js';
import { createHlsSource } from './adapters/sources/hls-source.js';
import { routeSources } from './adapters/sources/source-router.js';
import { createYouTubeSource, createYtDlp } from './adapters/sources/youtube-source.js';
import { createFetcher, type Fetcher } from './adapters/sources/http-fetch.js';
import { createFsStore } from './adapters/storage/fs-store.js';
import { createS3Store } from './adapters/storage/s3-store.js';
import { createUploadJournal } from './adapters/db/upload-journal.js';
import { createArchiveCheckRepo } from './adapters/db/archive-check-repo.js';
import { runVerifyArchives } from './jobs/verify-archives.js';
import type { Config } from './config.js';
import type { ArchiveStore, CaptureRepo, LivestreamRepo, StreamSource } from './core/ports.js';
import { buildApp } from './http/app.js';
import { parseChangelog } from './http/meta/changelog.js';
import { createHandlers } from './jobs/handlers.js';
import { PgBossJobs } from './jobs/pg-boss-jobs.js';
import { startWatchdog } from './jobs/watchdog.js';
import { readPackageInfo } from './package-info.js';
import { createOAuthProvider } from './adapters/auth/oauth-providers.js';
import { createOidcProvider } from './adapters/auth/oidc-provider.js';
import { createScryptPasswords } from './adapters/auth/scrypt-passwords.js';
import { createAdminActionRepo } from './adapters/db/admin-action-repo.js';
import { createApiTokenRepo } from './adapters/db/api-token-repo.js';
import { createExpiredPurger } from './adapters/db/expired-purger.js';
import { createLoginAttemptRepo } from './adapters/db/login-attempt-repo.js';
import { createRateLimiter } from './adapters/db/rate-limiter.js';
import { createSessionRepo } from './adapters/db/session-repo.js';
import { createSetupRepo } from './adapters/db/setup-repo.js';
import { createUserRepo } from './adapters/db/user-repo.js';
import { createSubmissionSource } from './adapters/sources/submission-policy.js';
import type { LoginProvider } from './core/account-ports.js';
import { offerSetupToken } from './core/offer-setup-token.js';
import type { Scheduler } from './core/ports.js';
import type { AccountDeps } from './http/auth/accounts-context.js';
import { startPurgingExpired } from './jobs/purge-expired.js';
import { createSearch, startSearchWorker, type Search } from './search-wiring.js';
import { throttled } from './log-throttle.js';

/** A database connection for this process, embedded or external. */
export interface Database {
  pool: pg.Pool;
  connectionString: string;
  livestreams: LivestreamRepo;
  captures: CaptureRepo;
  close(): Promise<void>;
}

/** How long running captures get to hand over on SIGTERM before the process stops anyway. */
const SHUTDOWN_GRACE_MS = 10_000;
/** Of that, how long a capture's chunks on local disk get to reach the store for the next worker. */
const HANDOVER_MS = 8_000;

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'kura' } });
}

/** While the database is away, the same complaint is logged once in this long. */
const DATABASE_LOG_EVERY_MS = 30_000;

export interface OpenOptions {
  /** `serve`: may take over an embedded cluster a dead Kura or a CLI command left (see startEmbeddedPostgres). */
  role?: 'serve' | 'command';
  /** Told when the embedded PostgreSQL this process owns exited and could not be started again. */
  onLost?: (error: Error) => void;
}

/** Connects to `DATABASE_URL`, or starts the embedded PostgreSQL, and brings the schema up to date. */
export async function openDatabase(config: Config, log: Logger, options: OpenOptions = {}): Promise<Database> {
  const embedded =
    config.databaseUrl === undefined
      ? await startEmbeddedPostgres({
          dir: path.join(config.dataDir, 'postgres'),
          systemDir: config.systemDir,
          log: (m) => log.debug({ postgres: m }),
          note: (m) => log.info(m),
          ...options,
        })
      : null;
  const connectionString = config.databaseUrl ?? (embedded?.connectionString as string);
  let closing = false;
  const lost = throttled(DATABASE_LOG_EVERY_MS, (suppressed, error: Error) => log.warn({ err: error, suppressed }, 'database connection lost'));
  const pool = createPool({
    connectionString,
    onError: (error) => closing || lost(error),
  });
  try {
    await assertSupportedServer(pool);
    const result = await migrate(pool, readPackageInfo().migrationsDir);
    if (result.applied.length > 0) log.info({ applied: result.applied }, 'database migrated');
  } catch (error) {
    await pool.end();
    await embedded?.stop();
    throw error;
  }
  return {
    pool,
    connectionString,
    livestreams: createLivestreamRepo(pool),
    captures: createCaptureRepo(pool),
    async close() {
      closing = true;
      await pool.end();
      await embedded?.stop();
    },
  };
}

/** A source's thumbnail image larger than this is not kept (YouTube's largest are ~200 KB). */
const MAX_THUMBNAIL_BYTES = 10 * 1024 * 1024;

/** Every source Kura records from: YouTube (through yt-dlp) and HLS playlists. */
export function createSources(config: Config, fetcher: Fetcher = createFetcher({ allowPrivate: config.allowPrivateSources })): StreamSource {
  return routeSources([createYouTubeSource(createYtDlp(config.ytdlpPath)), createHlsSource(fetcher)]);
}

/** The archive store `KURA_STORAGE` names: `dataDir/archive`, or the S3 bucket. */
export function createStore(config: Config, database: Database): ArchiveStore {
  return config.storage.kind === 's3'
    ? createS3Store(config.storage, { journal: createUploadJournal(database.pool) })
    : createFsStore(path.join(config.dataDir, 'archive'));
}

/** Starts the job queue for scheduling (CLI commands, api processes), with its clock for workers (`schedules`). */
export function startScheduler(config: Config, database: Database, log: Logger, options: { schedules?: boolean } = {}): Promise<PgBossJobs> {
  return PgBossJobs.start({
    ...options,
    connectionString: database.connectionString,
    pollSeconds: config.capture.jobPollSeconds,
    maxCaptures: config.capture.maxCaptures,
    onError: throttled(DATABASE_LOG_EVERY_MS, (suppressed, error: Error) => log.error({ err: error, suppressed }, 'job queue error')),
  });
}

export interface RunningKura {
  database: Database;
  jobs: PgBossJobs;
  app: FastifyInstance | null;
  /** Base URL the api listens on, when this process serves HTTP. */
  url: string | null;
  stop(): Promise<void>;
}

/**
 * Starts the roles `config.role` asks for; `stop` closes them in reverse order. `onDatabaseLost`
 * is told when the embedded PostgreSQL exited and could not be started again.
 */
export async function startKura(config: Config, log: Logger = createLogger(config), onDatabaseLost?: (error: Error) => void): Promise<RunningKura> {
  const database = await openDatabase(config, log, { role: 'serve', ...(onDatabaseLost ? { onLost: onDatabaseLost } : {}) });
  const store = createStore(config, database);
  const stops: Array<() => Promise<void> | void> = [() => database.close()];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const jobs = await startScheduler(config, database, log, { schedules: config.role !== 'api' });
    stops.push(() => jobs.stop(SHUTDOWN_GRACE_MS));
    // the api's change feed empties its read cache and keeps the built-in search index current
    const feedLog = throttled(DATABASE_LOG_EVERY_MS, (suppressed, m: string) => log.warn({ suppressed }, m));
    const feed = config.role === 'worker' ? null : await listenForChanges(database.connectionString, feedLog);
    if (feed !== null) stops.push(() => feed.close());
    const search = createSearch(config, database.pool, feed, log);
    stops.push(() => search.close());
    if (config.role !== 'api') {
      stops.push(await startWorker(config, database, store, jobs, log, await followSearch(config, database, search, jobs, log, stops)));
      stops.push(startPurgingExpired(createExpiredPurger(database.pool), { everySeconds: 3600, onError: (error) => log.warn({ err: error }, 'purging expired sessions failed') }));
    }
    let app: FastifyInstance | null = null;
    let url: string | null = null;
    if (feed !== null) {
      app = await buildHttp(config, database, store, feed, jobs, search);
      await announceSetup(config, database.pool, log);
      stops.push(() => (app as FastifyInstance).close());
      url = await app.listen({ port: config.port, host: config.host });
      log.info({ url, publicUrl: config.publicUrl, role: config.role }, 'kura api listening');
    }
    return { database, jobs, app, url, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** While the instance has no admin, logs how to make the first one, with a new one-time setup token. */
async function announceSetup(config: Config, pool: pg.Pool, log: Logger): Promise<void> {
  const token = await offerSetupToken({ setup: createSetupRepo(pool) }, { admins: new Set(config.accounts.admins) });
  if (token === null) return;
  log.warn(`No admin account yet: open ${config.publicUrl}/login and enter the setup token ${token}, or run: printf '%s' "$PASSWORD" | npx kura user add NAME --admin`);
}

/** Keeps the search index following the records (worker side); the drain the `index-records` job runs. */
async function followSearch(config: Config, database: Database, search: Search, jobs: PgBossJobs, log: Logger, stops: Array<() => Promise<void> | void>) {
  if (search.index === null) return undefined;
  const feed = await listenForChanges(database.connectionString, throttled(DATABASE_LOG_EVERY_MS, (suppressed, m: string) => log.warn({ suppressed }, m)));
  stops.push(() => feed.close());
  const follower = await startSearchWorker(search, database, feed, { publicUrl: config.publicUrl, requestJob: () => jobs.indexRecords(), log });
  stops.push(() => follower?.sync.stop());
  return follower?.drain;
}

/** Runs capture jobs and the watchdog; the returned function hands running captures back. */
async function startWorker(config: Config, database: Database, store: ArchiveStore, jobs: PgBossJobs, log: Logger, syncSearch?: () => Promise<unknown>) {
  const workerId = `${hostname()}:${process.pid}`;
  const spool = createSpool(path.join(config.dataDir, 'spool'));
  const { capture } = config;
  const fetcher = createFetcher({ allowPrivate: config.allowPrivateSources });
  const deps = {
    livestreams: database.livestreams,
    captures: database.captures,
    scheduler: jobs,
    jobs,
    sweep: createSweepRepo(database.pool),
    source: createSources(config, fetcher),
    recorder: createHlsRecorder({
      captures: database.captures,
      fetcher,
      spool,
      store,
      freeBytes,
      limits: { ...capture, heartbeatSeconds: Math.max(1, capture.staleAfterSeconds / 6), handoverMs: HANDOVER_MS },
    }),
    media: createFfmpegTools({
      ffmpeg: config.ffmpegPath,
      ffprobe: config.ffprobePath,
      backlogBytes: capture.chunkBytes,
      log: (line) => log.warn(line),
    }),
    store,
    spool,
    fetchImage: (url: string) => fetcher.bytes(url, { maxBytes: MAX_THUMBNAIL_BYTES }),
  };
  const worker = createHandlers(deps, {
    workerId,
    staleAfterSeconds: capture.staleAfterSeconds,
    watch: { pollSeconds: capture.watchPollSeconds, neverLiveSeconds: capture.neverLiveSeconds },
    // a live record's lease twice as old as the watchdog allows: the watchdog had its turn
    sweep: { neverLiveSeconds: capture.neverLiveSeconds, leaseSeconds: 2 * capture.staleAfterSeconds, batch: 5000 },
    onSwept: (repairs) => log.warn({ repairs }, 'lifecycle sweep repaired records'),
    ...(syncSearch ? { syncSearch } : {}),
    verifyArchives: () =>
      runVerifyArchives({ store, checks: createArchiveCheckRepo(database.pool) }, { everyDays: config.verify.everyDays, bytesPerRun: config.verify.bytesPerHour }, log),
  });
  await jobs.work(worker.handlers, worker.hooks, { pollSeconds: capture.jobPollSeconds, maxCaptures: capture.maxCaptures });
  const stopWatchdog = startWatchdog(deps, {
    staleAfterSeconds: capture.staleAfterSeconds,
    everySeconds: Math.max(1, capture.staleAfterSeconds / 3),
    onError: (error) => log.warn({ err: error }, 'capture watchdog failed'),
  });
  log.info({ workerId, maxCaptures: capture.maxCaptures }, 'kura worker ready');
  return async () => {
    stopWatchdog();
    await worker.abortCaptures();
  };
}

async function buildHttp(config: Config, database: Database, store: ArchiveStore, feed: ClosableChangeFeed, scheduler: Scheduler, search: Search): Promise<FastifyInstance> {
  const info = readPackageInfo();
  return buildApp(
    {
      livestreams: database.livestreams,
      captures: database.captures,
      store,
      source: createSources(config),
      isDatabaseReachable: () => isReachable(database.pool),
      changeFeed: feed,
      about: {
        name: info.name,
        version: info.version,
        commit: info.commit,
        changelog: parseChangelog(readFileSync(info.changelogPath, 'utf8')),
      },
      accounts: createAccountDeps(config, database.pool, scheduler),
      archiveChecks: createArchiveCheckRepo(database.pool),
      search: { access: search.access, engine: search.engine },
      lifecycleRepairs: createSweepRepo(database.pool).repairCounts,
    },
    { ...config, webDir: path.join(info.root, 'dist', 'web') },
  );
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

/** Accounts, sessions, tokens, submission and admin actions on this database. */
export function createAccountDeps(
  config: Config,
  pool: pg.Pool,
  scheduler: Scheduler,
  fetcher: Fetcher = createFetcher({ allowPrivate: config.allowPrivateSources }),
): AccountDeps {
  const { accounts } = config;
  return {
    users: createUserRepo(pool),
    sessions: createSessionRepo(pool),
    apiTokens: createApiTokenRepo(pool),
    loginAttempts: createLoginAttemptRepo(pool),
    rateLimiter: createRateLimiter(pool),
    passwords: createScryptPasswords(),
    adminActions: createAdminActionRepo(pool),
    setup: createSetupRepo(pool),
    providers: createLoginProviders(config),
    scheduler,
    submissionSource: createSubmissionSource(createSources(config, fetcher), { sources: accounts.sources, allowedChannels: accounts.allowedChannels }, fetcher),
    settings: { admins: new Set(accounts.admins), submitLimit: accounts.submitLimit, lookupLimit: accounts.lookupLimit, loginLimit: accounts.loginLimit },
  };
}
