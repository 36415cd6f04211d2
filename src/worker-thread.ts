// Decisions: docs/decisions/0096-recordings-in-a-thread-of-their-own.md
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from './config/config.js';
import { createLogger } from './wiring/logger.js';
import { startWorkerRole } from './worker-main.js';

/*
 * The worker of `kura serve` (KURA_ROLE=all) in a thread of its own: captures, finalizes, follows
 * and jobs run on this thread's event loop, so no request the api's thread answers (a search over
 * a million records, an import, a page) can delay a capture's fetches. It shares nothing with the
 * api's thread but the database and the disk, as a worker process does.
 */
const port = parentPort;
if (port === null) throw new Error('worker-thread.ts runs as the worker thread of `kura serve`');
const { config } = workerData as { config: Config };
let stopping = false;
// a stop asked while starting is carried out once started
port.on('message', (message) => message === 'stop' && (stopping = true));
const worker = await startWorkerRole(config, createLogger(config));
const stop = () => void worker.stop().finally(() => process.exit(0));
if (stopping) stop();
else {
  port.postMessage('ready');
  port.on('message', (message) => message === 'stop' && stop());
}
