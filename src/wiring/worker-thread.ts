// Decisions: docs/decisions/0096-recordings-in-a-thread-of-their-own.md
import { Worker } from 'node:worker_threads';
import type { Config } from '../config/config.js';
import { WORKER_THREAD_FILE } from '../thread-files.js';

/** The worker thread of `kura serve` under KURA_ROLE=all, starting. */
export interface WorkerThread {
  /** Resolves once the worker runs; rejects if the thread ended before. */
  ready: Promise<void>;
  /** Asks the worker to stop as a worker process does on SIGTERM (its captures handed over) and waits for the thread to end. */
  stop(): Promise<void>;
}

/**
 * Starts the worker's composition (`config`, a worker's: worker-main.ts) in a thread of its own
 * (src/worker-thread.ts). A thread that ends unasked after it was ready (an uncaught error) is
 * `onLost`, for `kura serve` to stop and its supervisor to start it again: its captures resume
 * at once through their leases and sessions (0092).
 */
export function startWorkerThread(config: Config, onLost?: (error: Error) => void): WorkerThread {
  let stopping = false;
  let failure: Error | null = null;
  const thread = new Worker(WORKER_THREAD_FILE, { workerData: { config } });
  thread.on('error', (error) => (failure = error));
  const exited = new Promise<number>((resolve) => thread.once('exit', resolve));
  const ready = new Promise<void>((resolve, reject) => {
    thread.once('message', (message) => message === 'ready' && resolve());
    void exited.then((code) => reject(failure ?? new Error(`the worker thread stopped before it was ready (exit code ${code})`)));
  });
  ready.then(
    () => void exited.then((code) => stopping || onLost?.(failure ?? new Error(`the worker thread stopped (exit code ${code})`))),
    () => undefined, // told to whoever awaits `ready`
  );
  return {
    ready,
    async stop() {
      stopping = true;
      thread.postMessage('stop');
      await exited;
    },
  };
}
