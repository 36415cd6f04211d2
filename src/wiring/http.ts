import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { ClosableChangeFeed } from '../adapters/db/change-listener.js';
import { createRecordedBytes } from '../adapters/capture/recorded-bytes.js';
import { createSpool } from '../adapters/capture/spool.js';
import { createArchiveCheckRepo } from '../adapters/db/archive-check-repo.js';
import { createDiskReportRepo } from '../adapters/db/disk-report-repo.js';
import { createFrameRequestSignal } from '../adapters/db/frame-repo.js';
import { diskSpace, rememberedFor } from '../adapters/os/disk-space.js';
import { isReachable } from '../adapters/db/pool.js';
import { createSweepRepo } from '../adapters/db/sweep-repo.js';
import { createChatFiles } from '../adapters/storage/chat-files.js';
import { createMomentRepo } from '../adapters/db/moment-repo.js';
import type { Config } from '../config/config.js';
import { getDiskFigures, type DiskFigures } from '../core/archive/disk-figures.js';
import type { ArchiveStore } from '../core/archive/ports.js';
import type { DiskSource } from '../http/disk-metrics.js';
import type { AccountDeps } from '../http/auth/account-deps.js';
import { buildApp } from '../http/app.js';
import { parseChangelog } from '../http/meta/changelog.js';
import { readPackageInfo } from '../adapters/os/package-info.js';
import type { Database } from './database.js';
import { createChannelResolver, eventSubOf, followPolicy } from './follow-signals.js';
import { createWebhookParts } from './notifications.js';
import type { Search } from './search.js';
import type { Sources } from './sources.js';
import { archiveDirOf, spoolDirOf } from './storage.js';
import { clipParts } from './clips.js';
import type { Scheduler } from '../core/scheduler.js';

/** What the api serves from: this process's database, store, change feed, search, sources and accounts. */
export interface HttpParts {
  database: Database;
  store: ArchiveStore;
  feed: ClosableChangeFeed;
  search: Search;
  sources: Sources;
  accounts: AccountDeps;
  scheduler: Scheduler;
  /** The process's log, which the app's error lines go to as well. */
  log: Logger;
}

/** The Fastify app on this process's parts (not listening yet). */
export function buildHttp(config: Config, parts: HttpParts): Promise<FastifyInstance> {
  const { database, store, feed, search, sources, accounts, scheduler, log } = parts;
  const info = readPackageInfo();
  return buildApp(
    {
      livestreams: database.livestreams,
      watchLooks: database.watchLooks,
      channels: database.channels,
      follows: { follows: database.follows, resolver: createChannelResolver(config), policy: followPolicy(config), rateLimiter: accounts.rateLimiter },
      ...eventSubOf(config, database.follows),
      webhooks: { ...createWebhookParts(config, database.pool), rateLimiter: accounts.rateLimiter },
      retention: { retention: database.retention, defaults: config.retention },
      captures: database.captures,
      moments: createMomentRepo(database.pool),
      chats: database.chats,
      chatFiles: createChatFiles(store),
      // the spool of this data directory: the worker's own under `kura serve` (a live edge without waiting for a chunk to fill)
      recordedBytes: createRecordedBytes({ captures: database.captures, store, spool: createSpool(spoolDirOf(config)) }),
      frameRequests: createFrameRequestSignal(database.pool),
      store,
      source: sources.source,
      isDatabaseReachable: () => isReachable(database.pool),
      changeFeed: feed,
      about: {
        name: info.name,
        version: info.version,
        commit: info.commit,
        changelog: parseChangelog(readFileSync(info.changelogPath, 'utf8')),
      },
      accounts,
      scheduler,
      archiveChecks: createArchiveCheckRepo(database.pool),
      search: { access: search.access, engine: search.engine },
      lifecycleRepairs: createSweepRepo(database.pool).repairCounts,
      clips: clipParts(config),
      disks: diskSource(config.storage.kind === 's3' ? null : archiveDirOf(config), database.pool),
    },
    { ...config, webDir: path.join(info.root, 'dist', 'web'), logger: log },
  );
}

/**
 * The disk figures the api shows: `archiveDir` read with statfs (null: S3, no figures), the
 * workers' spool reports: read at most every 5 s, however many ask.
 */
export function diskSource(archiveDir: string | null, pool: pg.Pool): DiskSource {
  const archiveSpace = archiveDir === null ? null : () => diskSpace(archiveDir);
  const reports = createDiskReportRepo(pool);
  return {
    read: rememberedFor<void, DiskFigures>(5000, () => getDiskFigures({ reports, archiveSpace }, new Date())),
    archiveStorage: archiveDir === null ? 's3' : 'local',
  };
}
