import pino from 'pino';
import { listenForChanges } from '../../src/adapters/db/change-listener.js';
import { createSearchDrain, startSearchSync } from '../../src/jobs/loops/search-sync.js';
import { createSearch, searchSyncDeps, type Search } from '../../src/wiring/search.js';
import type { SearchConfig } from '../../src/config/search.js';
import { TEST_PUBLIC_URL } from './app.js';
import type { TestDatabase } from './database.js';

export interface SearchFollower {
  search: Search;
  /** Resolves once drains of the search outbox applied every one of `ids` (after this call). */
  synced(ids: readonly string[], timeoutMs?: number): Promise<void>;
  /** Resolves with the ids of the first drain (after this call) that applied any. */
  nextSync(timeoutMs?: number): Promise<string[]>;
  /** Wakes the follower as a change notification does; resolves when that drain ended. */
  kick(): Promise<void>;
  /** Drains now; resolves with the ids applied (the `index-records` job's path). */
  drain(): Promise<string[]>;
  /** `index-records` jobs the follower asked for after a failed drain. */
  jobsRequested: number;
  stop(): Promise<void>;
}

/**
 * The worker side of search on a test database: the production follower (change notifications
 * wake a drain of the outbox). `synced` awaits the drainer's own event, never a sleep.
 */
export async function followSearch(
  db: TestDatabase,
  config: SearchConfig,
  search: Search = createSearch({ search: config, publicUrl: TEST_PUBLIC_URL }, db.pool, null),
): Promise<SearchFollower> {
  const feed = await listenForChanges(db.url, () => undefined);
  const waiters: Array<{ pending: Set<string>; done: () => void }> = [];
  const next: Array<(ids: string[]) => void> = [];
  const follower: SearchFollower = {
    search,
    jobsRequested: 0,
    synced(ids, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const pending = new Set(ids);
        const timer = setTimeout(() => reject(new Error(`search index did not apply ${[...pending].join(', ')} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ pending, done: () => (clearTimeout(timer), resolve()) });
      });
    },
    nextSync(timeoutMs = 10_000) {
      return new Promise<string[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no search drain within ${timeoutMs} ms`)), timeoutMs);
        next.push((ids) => (clearTimeout(timer), resolve(ids)));
      });
    },
    drain: async () => [],
    kick: async () => undefined,
    async stop() {
      sync.stop();
      await feed.close();
    },
  };
  const deps = searchSyncDeps(search, db, TEST_PUBLIC_URL);
  if (deps === null) throw new Error('search is off');
  // the production drain and follower, as the worker's search-sync loop starts them
  const drain = createSearchDrain(deps);
  const log = pino({ level: 'silent' });
  const sync = startSearchSync(feed, {
    sync: drain,
    requestJob: async () => {
      follower.jobsRequested++;
    },
    onError: (error) => log.warn({ err: error }, 'search index sync failed; an index-records job will retry'),
  });
  sync.onSynced((ids) => {
    next.splice(0).forEach((resolve) => resolve(ids));
    for (const waiter of [...waiters]) {
      for (const id of ids) waiter.pending.delete(id);
      if (waiter.pending.size === 0) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.done();
      }
    }
  });
  follower.drain = drain;
  follower.kick = () => sync.kick();
  return follower;
}
