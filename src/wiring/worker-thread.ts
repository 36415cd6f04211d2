// Decisions: docs/decisions/0092-background-work-in-its-own-thread.md
import { Worker } from 'node:worker_threads';
import type { Config } from '../config/config.js';

/**
 * Starts `kura serve`'s background work (`config`, a worker's) in a worker thread
 * (src/worker-thread.ts). Resolves once it is ready; a thread that ends unasked later (an uncaught
 * error) is `onLost`, for `kura serve` to stop and its supervisor to start it again (its captures
 * resume through their leases and sessions). `stop` asks it to stop as a worker process does on
 * SIGTERM (its captures handed back) and waits for it.
 */
export async function startWorkerThread(config: Config, onLost: (error: Error) => void): Promise<{ stop(): Promise<void> }> {
  let stopping = false;
  const thread = new Worker(new URL('../worker-thread.js', import.meta.url), { workerData: { config } });
  const exited = new Promise<number>((resolve) => thread.once('exit', resolve));
  let failure: Error | null = null;
  thread.on('error', (error) => (failure = error));
  await new Promise<void>((resolve, reject) => {
    thread.once('message', (message) => message === 'ready' && resolve());
    void exited.then((code) => reject(failure ?? new Error(`the worker thread stopped before it was ready (exit code ${code})`)));
  });
  void exited.then((code) => {
    if (!stopping) onLost(failure ?? new Error(`the worker thread stopped (exit code ${code})`));
  });
  return {
    async stop() {
      stopping = true;
      thread.postMessage('stop');
      await exited;
    },
  };
}
