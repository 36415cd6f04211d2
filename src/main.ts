import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import type pg from 'pg';
import { listenForChanges, type ClosableChangeFeed } from './adapters/db/change-listener.js';
import { startEmbeddedPostgres } from './adapters/db/embedded-postgres.js';
import { createLivestreamRepo } from './adapters/db/livestream-repo.js';
import { migrate } from './adapters/db/migrator.js';
import { assertSupportedServer, createPool, isReachable } from './adapters/db/pool.js';
import type { Config } from './config.js';
import type { LivestreamRepo } from './core/ports.js';
import { buildApp } from './http/app.js';
import { parseChangelog } from './http/meta/changelog.js';
import { readPackageInfo } from './package-info.js';

/** A database connection for this process, embedded or external. */
export interface Database {
  pool: pg.Pool;
  connectionString: string;
  livestreams: LivestreamRepo;
  close(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'kura' } });
}

/** Connects to `DATABASE_URL`, or starts the embedded PostgreSQL, and brings the schema up to date. */
export async function openDatabase(config: Config, log: Logger): Promise<Database> {
  const embedded =
    config.databaseUrl === undefined
      ? await startEmbeddedPostgres({ dir: path.join(config.dataDir, 'postgres'), log: (m) => log.debug({ postgres: m }) })
      : null;
  const connectionString = config.databaseUrl ?? (embedded?.connectionString as string);
  let closing = false;
  const pool = createPool({
    connectionString,
    onError: (error) => closing || log.warn({ err: error }, 'idle database connection lost'),
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
    async close() {
      closing = true;
      await pool.end();
      await embedded?.stop();
    },
  };
}

export interface RunningKura {
  database: Database;
  app: FastifyInstance | null;
  /** Base URL the api listens on, when this process serves HTTP. */
  url: string | null;
  stop(): Promise<void>;
}

/** Starts the roles `config.role` asks for; `stop` closes them in reverse order. */
export async function startKura(config: Config, log: Logger = createLogger(config)): Promise<RunningKura> {
  const database = await openDatabase(config, log);
  let app: FastifyInstance | null = null;
  let feed: ClosableChangeFeed | null = null;
  let url: string | null = null;
  try {
    if (config.role !== 'worker') {
      feed = await listenForChanges(database.connectionString, (m) => log.warn(m));
      app = await buildHttp(config, database, feed);
      url = await app.listen({ port: config.port, host: config.host });
      log.info({ url, publicUrl: config.publicUrl, role: config.role }, 'kura api listening');
    }
    if (config.role !== 'api') log.info('kura worker ready (no capture jobs are defined yet)');
  } catch (error) {
    await app?.close();
    await feed?.close();
    await database.close();
    throw error;
  }
  return {
    database,
    app,
    url,
    async stop() {
      await app?.close();
      await feed?.close();
      await database.close();
    },
  };
}

async function buildHttp(config: Config, database: Database, feed: ClosableChangeFeed): Promise<FastifyInstance> {
  const info = readPackageInfo();
  return buildApp(
    {
      livestreams: database.livestreams,
      isDatabaseReachable: () => isReachable(database.pool),
      changeFeed: feed,
      about: {
        name: info.name,
        version: info.version,
        commit: info.commit,
        changelog: parseChangelog(readFileSync(info.changelogPath, 'utf8')),
      },
    },
    config,
  );
}
