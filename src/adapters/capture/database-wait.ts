// Decisions: docs/decisions/0028-database-outages.md
import { isConnectionLoss } from '../db/connection-loss.js';
import { sleep } from './sleep.js';

const RETRY_EVERY_MS = 1_000;

/**
 * Runs `work` until PostgreSQL answers it: while the connection is lost it is tried again every
 * second, so the capture pauses and then goes on from where it was (the bytes are on local disk,
 * the source's window keeps what came meanwhile). Any other error, or `signal` aborting (the
 * worker shutting down), ends the wait. `onBack` hears how long the database was away.
 */
export async function untilDatabaseAnswers<T>(work: () => Promise<T>, signal: AbortSignal, onBack: (awayMs: number) => void): Promise<T> {
  let lostAt: number | null = null;
  for (;;) {
    try {
      const result = await work();
      if (lostAt !== null) onBack(Date.now() - lostAt);
      return result;
    } catch (error) {
      if (!isConnectionLoss(error) || signal.aborted) throw error;
      lostAt ??= Date.now();
      await sleep(RETRY_EVERY_MS, signal);
    }
  }
}
