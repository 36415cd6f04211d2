// Decisions: docs/decisions/0096-recordings-in-a-thread-of-their-own.md
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { logToolChecks } from './adapters/system/system-checks.js';
import { openDatabase, type Database } from './wiring/database.js';
import { startScheduler } from './wiring/jobs.js';
import { createSearch } from './wiring/search.js';
import { createSources, ytdlpOf } from './wiring/sources.js';
import { createStore } from './wiring/storage.js';
import { startWorker } from './wiring/worker.js';
import { stopsInReverse, type Running } from './wiring/stops.js';

/*
 * The worker's composition: captures, finalizes, follows and every other background job, on their
 * own event loop. It is the whole of a `KURA_ROLE=worker` process, and the worker thread of
 * `kura serve` under `KURA_ROLE=all` (worker-thread.ts). It imports nothing of the HTTP api.
 */

/** How long running captures get to hand over on SIGTERM before the worker stops anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Starts the worker on `config`'s database; `stop` hands its captures over and closes it. */
export async function startWorkerRole(config: Config, log: Logger, onDatabaseLost?: (error: Error) => void): Promise<Running & { database: Database }> {
  const database = await openDatabase(config, log, { role: 'serve', ...(onDatabaseLost ? { onLost: onDatabaseLost } : {}) });
  const running = stopsInReverse(() => database.close());
  // which ffmpeg and yt-dlp this worker runs, or what is missing and the fix (not waited for)
  logToolChecks(config, ytdlpOf(config), log).catch((error: Error) => log.warn(`the tools could not be checked: ${error.message}`));
  const { stop } = await running.startOrStop(async () => {
    const jobs = await startScheduler(database, log, { worker: true });
    running.add(() => jobs.stop(SHUTDOWN_GRACE_MS));
    const search = createSearch(config, database.pool, null, log);
    running.add(() => search.close());
    running.add(await startWorker(config, { database, store: await createStore(config, database), jobs, sources: createSources(config), search }, log));
    await database.checkpointAfterStart().catch((error: Error) => log.warn({ err: error }, 'the checkpoint after start failed'));
  });
  return { database, stop };
}
