// Decisions: docs/decisions/0025-process-roles-and-composition-root.md
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import type { Jobs } from './jobs/jobs.js';
import { announceSetup, createAccountDeps } from './wiring/accounts.js';
import { openChangeFeed, openDatabase, type Database } from './wiring/database.js';
import { buildHttp } from './wiring/http.js';
import { startScheduler } from './wiring/jobs.js';
import { createSearch } from './wiring/search.js';
import { logToolChecks } from './adapters/system/system-checks.js';
import { createSources, ytdlpOf } from './wiring/sources.js';
import { createStore } from './wiring/storage.js';
import { startWorker } from './wiring/worker.js';
import { createLogger } from './wiring/logger.js';

/*
 * The composition root: the only place that knows every implementation. `startKura` builds one
 * process from the factories in `wiring/` (each built once: database, store, job queue, sources,
 * search, accounts); the `kura` commands in cli.ts build theirs from the same factories.
 */

/** How long running captures get to hand over on SIGTERM before the process stops anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningKura {
  database: Database;
  jobs: Jobs;
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
  const sources = createSources(config);
  const stops: Array<() => Promise<void> | void> = [() => database.close()];
  // which ffmpeg and yt-dlp this process runs, or what is missing and the fix (not waited for)
  logToolChecks(config, ytdlpOf(config), log).catch((error: Error) => log.warn(`the tools could not be checked: ${error.message}`));
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    const jobs = await startScheduler(database, log, { worker: config.role !== 'api' });
    stops.push(() => jobs.stop(SHUTDOWN_GRACE_MS));
    // the api's change feed empties its read cache and keeps the built-in search index current
    const feed = config.role === 'worker' ? null : await openChangeFeed(database, log);
    if (feed !== null) stops.push(() => feed.close());
    const search = createSearch(config, database.pool, feed, log);
    stops.push(() => search.close());
    if (config.role !== 'api') stops.push(await startWorker(config, { database, store, jobs, sources, search }, log));
    let app: FastifyInstance | null = null;
    let url: string | null = null;
    if (feed !== null) {
      const accounts = createAccountDeps(config, database.pool, jobs, sources);
      app = await buildHttp(config, { database, store, feed, search, sources, accounts, log });
      await announceSetup(config, accounts.setup, log);
      stops.push(() => (app as FastifyInstance).close());
    }
    // what starting dirtied is written now, before the api listens (from then on `kura serve` is up
    // and its signals are handled); a refusal costs only a later, spread-out checkpoint
    await database.checkpointAfterStart().catch((error: Error) => log.warn({ err: error }, 'the checkpoint after start failed'));
    if (app !== null) {
      url = await app.listen({ port: config.port, host: config.host });
      log.info({ url, publicUrl: config.publicUrl, role: config.role }, 'kura api listening');
    }
    return { database, jobs, app, url, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
