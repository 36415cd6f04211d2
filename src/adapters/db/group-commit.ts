// Decisions: docs/decisions/0035-segments-on-disk-first.md
import { isConnectionLoss } from './connection-loss.js';

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * One statement for many callers (group commit): the items asked for within one turn of the
 * event loop, or while the statement before is on its way, are written together by `write`,
 * which answers each item in order. No caller waits longer than for one statement ahead of its
 * own, and 100 captures make a few statements a second instead of 100. A statement PostgreSQL
 * refuses (not a lost connection) is tried again item by item, so it fails only the item at fault.
 */
export function groupCommit<T, R>(write: (items: T[]) => Promise<R[]>): (item: T) => Promise<R> {
  let waiting: Array<Waiting<T, R>> = [];
  let writing = false;

  const writeBatch = async (batch: Array<Waiting<T, R>>): Promise<void> => {
    try {
      const results = await write(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(results[i] as R));
    } catch (error) {
      if (batch.length === 1 || isConnectionLoss(error)) return batch.forEach((w) => w.reject(error));
      for (const w of batch) await writeBatch([w]);
    }
  };

  const writeWaiting = async () => {
    writing = true;
    await new Promise<void>((resolve) => setImmediate(resolve)); // what is asked within this turn goes together
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      await writeBatch(batch);
    }
    writing = false;
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!writing) void writeWaiting();
    });
}
