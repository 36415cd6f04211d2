// Decisions: docs/decisions/0092-background-work-in-its-own-thread.md
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from './config/config.js';
import { startKura } from './main.js';

/*
 * The background work of `kura serve` (KURA_ROLE=all) in a thread of its own: captures, finalizes,
 * follows and jobs run on this thread's event loop, so no request the api thread answers (a search
 * over a million records, an import, a page) can delay a capture's fetches. It shares nothing with
 * the api thread but the database and the disk, as a worker process does.
 */
const { config } = workerData as { config: Config };
const port = parentPort;
if (port === null) throw new Error('worker-thread.ts runs as a worker thread of `kura serve`');
const kura = await startKura(config);
port.postMessage('ready');
port.on('message', (message) => {
  if (message !== 'stop') return;
  void kura.stop().finally(() => port.close());
});
