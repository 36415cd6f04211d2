// Decisions: docs/decisions/0096-recordings-in-a-thread-of-their-own.md
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { openDatabase, type Database } from './wiring/database.js';
import { createLogger } from './wiring/logger.js';
import { stopsInReverse } from './wiring/stops.js';
import { startWorkerThread } from './wiring/worker-thread.js';

/*
 * The composition root: the only place that knows every implementation. `startKura` starts the
 * roles a process runs, each composed from the factories in `wiring/` (each built once: database,
 * store, job queue, sources, search, accounts): the api in api-main.ts, the worker in
 * worker-main.ts, which under KURA_ROLE=all runs in a thread of its own so that no request delays
 * a recording (0096). Each is loaded only where it runs; the `kura` commands in cli.ts build
 * theirs from the same factories.
 */

export interface RunningKura {
  database: Database;
  /** Base URL the api listens on, when this process serves HTTP. */
  url: string | null;
  stop(): Promise<void>;
}

/**
 * Starts the roles `config.role` asks for; `stop` closes them in reverse order. `onLost` is told
 * when a part the process cannot run without is gone: the embedded PostgreSQL exited and could not
 * be started again, or the worker thread of KURA_ROLE=all stopped unasked.
 */
export async function startKura(config: Config, log: Logger = createLogger(config), onLost?: (error: Error) => void): Promise<RunningKura> {
  if (config.role === 'worker') {
    const { startWorkerRole } = await import('./worker-main.js');
    return { url: null, ...(await startWorkerRole(config, log, onLost)) };
  }
  const database = await openDatabase(config, log, { role: 'serve', ...(onLost ? { onLost } : {}) });
  const running = stopsInReverse(() => database.close());
  let url: string | null = null;
  const started = await running.startOrStop(async () => {
    // KURA_ROLE=all: the worker's thread starts on this database at once, and loads its modules while this thread loads the api's
    const worker = config.role === 'all' ? startWorkerThread({ ...config, role: 'worker', databaseUrl: database.connectionString }, onLost) : null;
    if (worker !== null) running.add(() => worker.stop());
    const { buildApi } = await import('./api-main.js');
    const app = await buildApi(config, database, log, running.add);
    await worker?.ready;
    // what starting dirtied is written now, before the api listens (from then on `kura serve` is up
    // and its signals are handled); a refusal costs only a later, spread-out checkpoint
    await database.checkpointAfterStart().catch((error: Error) => log.warn({ err: error }, 'the checkpoint after start failed'));
    url = await app.listen({ port: config.port, host: config.host });
    log.info({ url, publicUrl: config.publicUrl, role: config.role }, 'kura api listening');
  });
  return { database, url, stop: started.stop };
}
