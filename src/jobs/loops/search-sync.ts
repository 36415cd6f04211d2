// Decisions: docs/decisions/0047-search-outbox.md
import { changeKindOf } from '../../shared/record-changes.js';
import type { ChangeFeed } from '../../shared/change-feed.js';
import { syncSearchIndex, type SearchSyncDeps } from '../../core/search/sync-search-index.js';
import type { BackgroundLog, SearchDrain } from '../job-work.js';

/**
 * The drain of the search outbox that the search-sync loop and the `index-records` job share: the
 * index is prepared (created, its settings applied) by the first drain, then each drain applies
 * what the outbox holds.
 */
export function createSearchDrain(deps: SearchSyncDeps): SearchDrain {
  let prepared = false;
  return async () => {
    if (!prepared) {
      await deps.index.prepare();
      prepared = true;
    }
    return syncSearchIndex(deps);
  };
}

/** The search-sync loop of the catalogue: woken by RECORD_CHANGES_CHANNEL; nothing when search is off. */
export function startSearchSyncLoop(
  context: { search?: SearchDrain; jobs: { indexRecords(): Promise<void> }; log: BackgroundLog },
  wake: { feed: ChangeFeed },
): () => void {
  const { search, jobs, log } = context;
  if (search === undefined) return () => undefined;
  const sync = startSearchSync(wake.feed, {
    sync: search,
    requestJob: () => jobs.indexRecords(),
    onError: (error) => log.warn({ err: error }, 'search index sync failed; an index-records job will retry'),
  });
  return () => sync.stop();
}

export interface SearchSyncOptions {
  /** Drains the outbox into the engine (syncSearchIndex); resolves with the record ids applied. */
  sync: () => Promise<string[]>;
  /** The durable path: a queued `index-records` job, retried with backoff until the engine answers. */
  requestJob: () => Promise<void>;
  onError: (error: unknown) => void;
}

export interface SearchSync {
  /** Drains now (or again, once the drain in progress ends); resolves when that drain ended. */
  kick(): Promise<void>;
  /** Calls `listener` with the record ids each drain applied. */
  onSynced(listener: (ids: string[]) => void): void;
  stop(): void;
}

/**
 * Keeps the search index following the records: every committed change to records wakes a drain
 * of the search outbox at once (PostgreSQL notifications), so the index follows within a moment.
 * When a drain fails, an `index-records` job takes over (the changes wait in the outbox).
 */
export function startSearchSync(feed: ChangeFeed, options: SearchSyncOptions): SearchSync {
  const listeners: Array<(ids: string[]) => void> = [];
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const drain = async (): Promise<void> => {
    do {
      again = false;
      try {
        const ids = await options.sync();
        if (ids.length > 0) listeners.forEach((listener) => listener(ids));
      } catch (error) {
        options.onError(error);
        await options.requestJob().catch(options.onError);
        return;
      }
    } while (again && !stopped);
  };

  const kick = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running !== null) {
      again = true;
      return running;
    }
    running = drain().finally(() => {
      running = null;
    });
    return running;
  };

  // the outbox fills with changes to records and their submitters; the documents the drain writes notify too, and are not more work
  feed.onChange((payload) => ['records', 'moments', 'anything'].includes(changeKindOf(payload)) && void kick());
  void kick(); // changes made while no worker ran
  return {
    kick,
    onSynced(listener) {
      listeners.push(listener);
    },
    stop() {
      stopped = true;
    },
  };
}
