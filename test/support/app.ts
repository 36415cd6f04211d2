// Decisions: docs/decisions/0119-tests-that-cannot-lie.md
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createArchiveCheckRepo } from '../../src/adapters/db/archive-check-repo.js';
import { createChatRepo } from '../../src/adapters/db/chat-repo.js';
import { createChatFiles } from '../../src/adapters/storage/chat-files.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFrameRequestSignal } from '../../src/adapters/db/frame-repo.js';
import { createRecordedBytes } from '../../src/adapters/capture/recorded-bytes.js';
import { createSpool } from '../../src/adapters/capture/spool.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { createMomentRepo } from '../../src/adapters/db/moment-repo.js';
import { listenForChanges, type ClosableChangeFeed } from '../../src/adapters/db/change-listener.js';
import { isReachable } from '../../src/adapters/db/pool.js';
import { createFetcher } from '../../src/adapters/sources/http-fetch.js';
import type { OutboundOptions } from '../../src/adapters/outbound/outbound-client.js';
import { createHlsSource } from '../../src/adapters/sources/hls-source.js';
import { routeSources } from '../../src/adapters/sources/source-router.js';
import { createYouTubeSource, createYtDlp } from '../../src/adapters/sources/youtube-source.js';
import { ytdlpProgram } from '../../src/adapters/ytdlp/ytdlp-program.js';
import { importLivestreams } from '../../src/core/records/import-livestreams.js';
import type { ChangeFeed } from '../../src/shared/change-feed.js';
import type { StreamSource } from '../../src/core/sources/ports.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { parseConfig } from '../../src/config/config.js';
import type { AccountDeps } from '../../src/http/auth/account-deps.js';
import { createAccountDeps } from '../../src/wiring/accounts.js';
import { createSources } from '../../src/wiring/sources.js';
import type { Fetcher } from '../../src/adapters/sources/http-fetch.js';
import { buildApp, type AppOptions } from '../../src/http/app.js';
import { createChannelRepo } from '../../src/adapters/db/channel-repo.js';
import { createFollowRepo } from '../../src/adapters/db/follow-repo.js';
import { createRetentionRepo } from '../../src/adapters/db/retention-repo.js';
import { createChannelResolver, eventSubOf, followPolicy } from '../../src/wiring/follow-signals.js';
import { createWebhookParts } from '../../src/wiring/notifications.js';
import { diskSource } from '../../src/wiring/http.js';
import { clipParts } from '../../src/wiring/clips.js';
import { parseChangelog } from '../../src/http/meta/changelog.js';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';
import type { Search } from '../../src/wiring/search.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import type { HistoryRecordJson } from './factories.js';
import { startJobsWithoutWorkers } from './jobs.js';

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  /** Imports records through the real import use case; resolves once the change reached the app. */
  load(records: HistoryRecordJson[]): Promise<void>;
  /** Resolves at the next change notification the app receives. */
  nextChange(): Promise<void>;
  /**
   * Resolves once the app has heard of every change committed before the call: it sends a
   * notification of its own, which PostgreSQL delivers after those of earlier commits.
   */
  caughtUp(): Promise<void>;
  /** Accounts as the app was wired with them (the production wiring on the test database). */
  accounts: AccountDeps;
  /** The real pg-boss the app queues jobs on, with no workers: read what it queued with `queuedJobs`. */
  jobs: Jobs;
  /** Where the app's fs store keeps archives. */
  archiveDir: string;
  /** The change feed the read cache follows. */
  feed: ClosableChangeFeed;
  close(): Promise<void>;
}

export const TEST_PUBLIC_URL = 'http://kura.test';
/** The yt-dlp STAND-IN the test apps ask about YouTube URLs (see test/support/bin/yt-dlp-stand-in.mjs). */
export const YTDLP_STAND_IN = path.join(readPackageInfo().root, 'test', 'support', 'bin', 'yt-dlp-stand-in.mjs');
/** The stand-in as Kura runs it: with this node as its JavaScript runtime, and no cookies. */
export const YTDLP_STAND_IN_PROGRAM = ytdlpProgram(YTDLP_STAND_IN);

/** Kura's sources as the tests run them: HLS on loopback allowed, YouTube through the yt-dlp stand-in. */
export function testSources(): StreamSource {
  return routeSources([createYouTubeSource(createYtDlp(YTDLP_STAND_IN_PROGRAM)), createHlsSource(createFetcher({ allowPrivate: true }))]);
}

export interface TestAccountOptions {
  /** Environment for the accounts slice of the config (KURA_ADMINS, OIDC_*, rate limits…). */
  env?: Record<string, string>;
  /** The fetcher submissions go through (default: private sources allowed, as tests serve on loopback). */
  fetcher?: Fetcher;
}

/** The real app on its own fresh database, with the change feed (and so the read cache) on. */
export async function startTestApp(
  options: Partial<AppOptions> = {},
  accountOptions: TestAccountOptions = {},
  wiring: {
    /** The search the app serves (may first prepare the database, e.g. hold a lock its index load waits on). */
    search?: (db: TestDatabase, feed: ChangeFeed) => Search | Promise<Search>;
    /** Where the app keeps archives (default: an fs store in `archiveDir`). */
    store?: ArchiveStore;
    /** The spool live playback reads beside the store (default: an empty folder of its own). */
    spoolDir?: string;
    /** The connection string the change feed listens on (default: the database's own). */
    feedUrl?: (db: TestDatabase) => string;
    /** The feed the app's read cache follows, made from the real one (default: the real one). */
    appFeed?: (feed: ClosableChangeFeed) => ChangeFeed;
    /** The DNS the creation-time check of follows and webhooks asks (default: the system resolver). */
    resolve?: OutboundOptions['resolve'];
    /** The database to serve, migrated already (default: a fresh one); the app's `close` drops it. */
    database?: TestDatabase;
  } = {},
): Promise<TestApp> {
  const db = wiring.database ?? (await createTestDatabase());
  const config = parseConfig({
    KURA_PUBLIC_URL: options.publicUrl ?? TEST_PUBLIC_URL,
    KURA_ALLOW_PRIVATE_SOURCES: 'true',
    YTDLP_PATH: YTDLP_STAND_IN,
    ...accountOptions.env,
  });
  const jobs = await startJobsWithoutWorkers(db.pool);
  const accounts = createAccountDeps(config, db.pool, createSources(config, accountOptions.fetcher));
  const archiveDir = await mkdtemp(path.join(os.tmpdir(), 'kura-archive-'));
  const store = wiring.store ?? createFsStore(archiveDir);
  const captures = createCaptureRepo(db.pool);
  const spool = createSpool(wiring.spoolDir ?? (await mkdtemp(path.join(os.tmpdir(), 'kura-spool-'))));
  const feed: ClosableChangeFeed = await listenForChanges(wiring.feedUrl?.(db) ?? db.url, () => undefined);
  const listeners = new Set<(payload?: string) => void>();
  feed.onChange((payload) => [...listeners].forEach((listener) => listener(payload)));
  const heard = (wanted: (payload?: string) => boolean) =>
    new Promise<void>((resolve) => {
      const listener = (payload?: string) => {
        if (!wanted(payload)) return;
        listeners.delete(listener);
        resolve();
      };
      listeners.add(listener);
    });
  const nextChange = () => heard(() => true);
  const caughtUp = async () => {
    const barrier = `caught-up-${randomBytes(6).toString('hex')}`;
    const arrived = heard((payload) => payload === barrier);
    await db.pool.query(`select pg_notify('kura_livestreams_changed', $1)`, [barrier]);
    await arrived;
  };
  const search = await wiring.search?.(db, feed);
  const info = readPackageInfo();
  const app = await buildApp(
    {
      livestreams: db.livestreams,
      watchLooks: db.watchLooks,
      channels: createChannelRepo(db.pool),
      follows: {
        follows: createFollowRepo(db.pool),
        resolver: createChannelResolver(config),
        policy: followPolicy(config, wiring.resolve),
        rateLimiter: accounts.rateLimiter,
      },
      ...eventSubOf(config, createFollowRepo(db.pool)),
      webhooks: { ...createWebhookParts(config, db.pool, wiring.resolve), rateLimiter: accounts.rateLimiter },
      retention: { retention: createRetentionRepo(db.pool), defaults: config.retention },
      chats: createChatRepo(db.pool),
      chatFiles: createChatFiles(store),
      captures,
      moments: createMomentRepo(db.pool),
      recordedBytes: createRecordedBytes({ captures, store, spool }),
      frameRequests: createFrameRequestSignal(db.pool),
      store,
      source: testSources(),
      isDatabaseReachable: () => isReachable(db.pool),
      changeFeed: wiring.appFeed?.(feed) ?? feed,
      about: { name: info.name, version: info.version, commit: info.commit, changelog: parseChangelog(readFileSync(info.changelogPath, 'utf8')) },
      accounts,
      scheduler: jobs,
      archiveChecks: createArchiveCheckRepo(db.pool),
      search,
      disks: diskSource(wiring.store === undefined ? archiveDir : null, db.pool),
      clips: clipParts(config),
    },
    {
      publicUrl: TEST_PUBLIC_URL,
      corsOrigins: ['*'],
      usdPerGbPerMonth: 0.023,
      readCacheEntries: 1000,
      logLevel: process.env.KURA_TEST_LOG ?? 'silent',
      webDir: path.join(info.root, 'dist', 'web'),
      ...options,
    },
  );
  await app.ready();
  return {
    app,
    db,
    nextChange,
    caughtUp,
    accounts,
    jobs,
    archiveDir,
    feed,
    async load(records) {
      const changed = nextChange();
      await importLivestreams(db, records);
      await changed;
    },
    async close() {
      await app.close();
      await search?.close();
      await feed.close();
      await jobs.stop(0);
      await db.drop();
    },
  };
}
