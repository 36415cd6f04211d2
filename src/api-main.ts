// Decisions: docs/decisions/0096-recordings-in-a-thread-of-their-own.md
import { engineAdvice } from './core/search/engine-advice.js';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { logToolChecks } from './adapters/system/system-checks.js';
import { announceSetup, createAccountDeps } from './wiring/accounts.js';
import { openChangeFeed, type Database } from './wiring/database.js';
import { buildHttp } from './wiring/http.js';
import { startScheduler } from './wiring/jobs.js';
import { createSearch } from './wiring/search.js';
import { createSources, ytdlpOf } from './wiring/sources.js';
import { createStore } from './wiring/storage.js';

/*
 * The api's composition: the HTTP app on `database`, with the job queue it sends to, the change
 * feed that empties its read cache and keeps the built-in search index current, search and
 * accounts. It imports nothing of the worker.
 */

/** Builds the api (not listening yet); each part's stop goes to `onStop`, to run in reverse order. */
export async function buildApi(config: Config, database: Database, log: Logger, onStop: (stop: () => Promise<void> | void) => void): Promise<FastifyInstance> {
  // which ffmpeg and yt-dlp this process runs, or what is missing and the fix (not waited for; KURA_ROLE=all: its worker says)
  if (config.role === 'api') logToolChecks(config, ytdlpOf(config), log).catch((error: Error) => log.warn(`the tools could not be checked: ${error.message}`));
  const jobs = await startScheduler(database, log);
  onStop(() => jobs.stop(0));
  const feed = await openChangeFeed(database, log);
  onStop(() => feed.close());
  const search = createSearch(config, database.pool, feed, log, { databaseUrl: database.connectionString });
  engineAdvice(config.search.kind, database.livestreams).then(
    (advice) => advice === null || log.warn(advice),
    (error: Error) => log.warn(`the archive's size could not be read: ${error.message}`),
  );
  onStop(() => search.close());
  const sources = createSources(config);
  const accounts = createAccountDeps(config, database.pool, sources);
  const app = await buildHttp(config, { database, store: await createStore(config, database), feed, search, sources, accounts, scheduler: jobs, log });
  await announceSetup(config, accounts.setup, log);
  onStop(() => app.close());
  return app;
}
