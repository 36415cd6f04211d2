// Decisions: docs/decisions/0026-embedded-postgresql-ownership.md
import { isRunning } from './process-state.js';

/** A running postmaster: its pid, its port, and a fast shutdown. */
export interface Postmaster {
  pid: number;
  port: number;
  /** Resolves when it exits: set for a child of this process (one it started), unknown for one it took over. */
  exited?: Promise<void>;
  stop(): Promise<void>;
}

/** What keepPostgres watches, how it starts PostgreSQL again, and whom it tells. */
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

/** How often a postmaster this process did not start (taken over from a CLI command) is looked at: only a child's exit is told. */
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
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const exited = async (postmaster: Postmaster) => {
    if (stopped || postmaster !== current || !(await options.stillOurs())) return;
    options.log(`the embedded PostgreSQL (pid ${postmaster.pid}) exited unexpectedly; starting it again on port ${postmaster.port}`);
    let lastError: Error = new Error('not started');
    for (let attempt = 0; attempt < RESTART_ATTEMPTS && !stopped; attempt++) {
      try {
        current = await options.start();
        options.log(`the embedded PostgreSQL runs again (pid ${current.pid})`);
        return watch(current);
      } catch (error) {
        lastError = error as Error;
        await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** attempt));
      }
    }
    if (stopped) return;
    options.onLost?.(new Error(`The embedded PostgreSQL exited and could not be started again: ${lastError.message}`, { cause: lastError }));
  };

  // our own child tells when it exits (nothing to do until then); one taken over is looked at
  const watch = (postmaster: Postmaster) => {
    if (postmaster.exited !== undefined) return void postmaster.exited.then(() => exited(postmaster)).catch(() => undefined);
    const look = async () => {
      if (stopped || (await isRunning(postmaster.pid))) return;
      clearInterval(timer);
      await exited(postmaster);
    };
    timer = setInterval(() => void look().catch(() => undefined), CHECK_EVERY_MS);
    timer.unref();
  };

  if (options.onLost !== undefined) watch(current);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      return current;
    },
  };
}
