import { readFile } from 'node:fs/promises';
import { isAlive } from './postgres-owner.js';

/** A running postmaster: its pid, its port, and a fast shutdown. */
export interface Postmaster {
  pid: number;
  port: number;
  stop(): Promise<void>;
}

export interface KeeperOptions {
  first: Postmaster;
  /** Starts PostgreSQL again on the same port (the connection strings handed out stay valid). */
  start: () => Promise<Postmaster>;
  /** Whether this process still owns the cluster: a `kura serve` may have taken it over. */
  stillOurs: () => Promise<boolean>;
  log: (message: string) => void;
  /** Unset: nothing is watched. Told when PostgreSQL exited and could not be started again. */
  onLost?: (error: Error) => void;
}

const CHECK_EVERY_MS = 1_000;
/** Starts tried after PostgreSQL exited unexpectedly, waiting 1, 2, 4 … s between them (about a minute in all). */
const RESTART_ATTEMPTS = 6;

/**
 * Watches the postmaster this process owns: when it exits unexpectedly (killed, crashed) it is
 * started again on its port; when that keeps failing, `onLost` is told once. `stop` ends the
 * watching and returns the current postmaster for the caller to shut down.
 */
export function keepPostgres(options: KeeperOptions): { stop(): Postmaster } {
  let current = options.first;
  let busy = false;
  let stopped = false;
  const check = async () => {
    if (busy || stopped || (await isRunning(current.pid))) return;
    busy = true;
    try {
      if (!(await options.stillOurs())) return void clearInterval(timer);
      options.log(`the embedded PostgreSQL (pid ${current.pid}) exited unexpectedly; starting it again on port ${current.port}`);
      let lastError: Error = new Error('not started');
      for (let attempt = 0; attempt < RESTART_ATTEMPTS && !stopped; attempt++) {
        try {
          current = await options.start();
          options.log(`the embedded PostgreSQL runs again (pid ${current.pid})`);
          return;
        } catch (error) {
          lastError = error as Error;
          await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** attempt));
        }
      }
      if (stopped) return;
      clearInterval(timer);
      options.onLost?.(new Error(`The embedded PostgreSQL exited and could not be started again: ${lastError.message}`, { cause: lastError }));
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void check().catch(() => undefined), CHECK_EVERY_MS);
  timer.unref();
  if (options.onLost === undefined) clearInterval(timer);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      return current;
    },
  };
}

/** Alive and not a zombie (our own child waits as one until Node reaps it). */
async function isRunning(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return false;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}
