import path from 'node:path';
import type { Logger } from 'pino';
import type pg from 'pg';
import { createCaptureRepo } from '../adapters/db/capture-repo.js';
import { createChatRepo } from '../adapters/db/chat-repo.js';
import { listenForChanges, listenForChannels, type ChannelFeeds, type ClosableChangeFeed } from '../adapters/db/change-listener.js';
import { noteWorkerSession } from '../adapters/db/worker-session.js';
import { startEmbeddedPostgres } from '../adapters/embedded-postgres/embedded-postgres.js';
import { createChannelRepo } from '../adapters/db/channel-repo.js';
import { createFollowRepo } from '../adapters/db/follow-repo.js';
import { createRetentionRepo } from '../adapters/db/retention-repo.js';
import { createLivestreamRepo } from '../adapters/db/livestream-repo.js';
import { createWatchLookRepo } from '../adapters/db/watch-look-repo.js';
import { assertSupportedServer, checkpoint, createPool } from '../adapters/db/pool.js';
import type { Config } from '../config/config.js';
import type { CaptureRepo } from '../core/capture/ports.js';
import type { ChatLog } from '../core/chat/ports.js';
import type { ChannelRepo } from '../core/channels/ports.js';
import type { FollowRepo } from '../core/follows/ports.js';
import type { RetentionRepo } from '../core/retention/ports.js';
import type { LivestreamRepo, WatchLooks } from '../core/records/ports.js';
import { throttled } from '../shared/log-throttle.js';
import { migrateToThisRelease } from './release.js';

/** A database connection for this process, embedded or external. */
export interface Database {
  pool: pg.Pool;
  connectionString: string;
  livestreams: LivestreamRepo;
  channels: ChannelRepo;
  captures: CaptureRepo;
  chats: ChatLog;
  follows: FollowRepo;
  retention: RetentionRepo;
  watchLooks: WatchLooks;
  /**
   * Once `kura serve` has started its parts, before its api listens: the embedded cluster writes
   * what the start dirtied (the migrations, pg-boss's queues, the first reports) in one go, rather
   * than in its first timed checkpoint, which spread it over the server's sixth to tenth idle
   * minutes. Nothing for an external database.
   */
  checkpointAfterStart(): Promise<void>;
  close(): Promise<void>;
}

/** While the database is away, the same complaint is logged once in this long. */
export const DATABASE_LOG_EVERY_MS = 30_000;

export interface OpenOptions {
  /** `serve`: may take over an embedded cluster a dead Kura or a CLI command left (see startEmbeddedPostgres). */
  role?: 'serve' | 'command';
  /** Told when the embedded PostgreSQL this process owns exited and could not be started again. */
  onLost?: (error: Error) => void;
  /** Migrates only as far as this migration (`kura restore`: the backup's schema first); unset: to this release's newest. */
  migrateUpTo?: string;
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
    max: config.dbPoolMax,
    onError: (error) => closing || lost(error),
  });
  try {
    await assertSupportedServer(pool);
    const result = await migrateToThisRelease(pool, options.migrateUpTo);
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
    channels: createChannelRepo(pool),
    captures: createCaptureRepo(pool),
    chats: createChatRepo(pool),
    follows: createFollowRepo(pool),
    retention: createRetentionRepo(pool),
    watchLooks: createWatchLookRepo(pool),
    async checkpointAfterStart() {
      if (embedded !== null) await checkpoint(pool);
    },
    async close() {
      closing = true;
      await pool.end();
      await embedded?.stop();
    },
  };
}

/** Follows committed record changes (LISTEN), complaining at most once in a while while disconnected. */
export function openChangeFeed(database: Database, log: Logger): Promise<ClosableChangeFeed> {
  return listenForChanges(database.connectionString, feedLog(log));
}

/** LISTENs to `channels` on one connection, complaining at most once in a while while disconnected. */
export function openChannelFeeds(database: Database, log: Logger, channels: readonly string[], sessionOf?: string): Promise<ChannelFeeds> {
  // `sessionOf`: the worker whose liveness this connection's session stands for (worker-session.ts)
  const onConnect = sessionOf === undefined ? undefined : (client: pg.Client) => noteWorkerSession(client, sessionOf);
  return listenForChannels(database.connectionString, feedLog(log), channels, onConnect);
}

function feedLog(log: Logger): (message: string) => void {
  return throttled(DATABASE_LOG_EVERY_MS, (suppressed, m: string) => log.warn({ suppressed }, m));
}
