import type pg from 'pg';
import type { Logger } from 'pino';
import { createSearchOutbox } from '../adapters/db/search-outbox.js';
import { createBuiltinIndex } from '../adapters/search/builtin-index.js';
import { createBuiltinSearch } from '../adapters/search/builtin-search.js';
import { createMeilisearchIndex } from '../adapters/search/meilisearch-index.js';
import type { SearchConfig } from '../config-search.js';
import type { ChangeFeed, LivestreamRepo } from '../core/livestream/ports.js';
import { SEARCH_INDEX, type SearchEngine, type SearchIndex } from '../core/search/search.js';
import { reindexSearch, syncSearchIndex, type SearchSyncDeps } from '../core/search/sync-search-index.js';
import { publicRecord } from '../core/workflow/public-record.js';
import type { SearchAccessProvider } from '../http/search/search.routes.js';
import { startSearchSync, type SearchSync } from '../jobs/search-sync.js';
import { openChangeFeed, type Database } from './database.js';

/** The configured search: how clients reach it, the built-in engine (if that one), the index to keep. */
export interface Search {
  access: SearchAccessProvider;
  engine: SearchEngine | null;
  index: SearchIndex | null;
  /** Stops what the built-in engine keeps following. */
  close(): Promise<void>;
}

/**
 * Builds the search KURA_SEARCH names; the Meilisearch admin key stays inside its adapter.
 * `feed`: the api process's change feed, which the built-in engine's in-memory index follows
 * (null where nothing is served: the index is then read from the change log at each search).
 * `log` hears when that index cannot be brought up to date.
 */
export function createSearch(config: { search: SearchConfig; publicUrl: string }, pool: pg.Pool, feed: ChangeFeed | null, log?: Pick<Logger, 'warn'>): Search {
  const { search } = config;
  const close = async () => undefined;
  if (search.kind === 'off') return { access: null, engine: null, index: null, close };
  if (search.kind === 'meilisearch') {
    const index = createMeilisearchIndex({ url: search.url, adminKey: search.adminKey });
    return { access: async () => ({ url: search.publicUrl, apiKey: await index.searchKey(), index: SEARCH_INDEX }), engine: null, index, close };
  }
  const engine = createBuiltinSearch(pool, feed, (error) =>
    log?.warn({ err: error }, 'the search index could not be brought up to date; searches may miss recent changes until it is'),
  );
  const url = `${config.publicUrl}/api/search-engine`;
  return {
    access: async () => ({ url, apiKey: await engine.searchKey(), index: SEARCH_INDEX }),
    engine,
    index: createBuiltinIndex(pool),
    close: () => engine.close(),
  };
}

function syncDeps(index: SearchIndex, pool: pg.Pool, livestreams: LivestreamRepo, publicUrl: string): SearchSyncDeps {
  // a search document is public: every search answers it as it is, so its source URL is redacted for everyone
  return { outbox: createSearchOutbox(pool), livestreams, index, document: (livestream) => publicRecord(livestream, publicUrl, 'public') };
}

/** Worker side: prepares the index, then follows record changes into it. Null when search is off. */
export async function startSearchWorker(
  search: Search,
  db: { pool: pg.Pool; livestreams: LivestreamRepo },
  feed: ChangeFeed,
  options: { publicUrl: string; requestJob: () => Promise<void>; log: Logger },
): Promise<{ sync: SearchSync; drain: () => Promise<string[]> } | null> {
  if (search.index === null) return null;
  const deps = syncDeps(search.index, db.pool, db.livestreams, options.publicUrl);
  const index = search.index;
  let prepared = false;
  const drain = async () => {
    if (!prepared) {
      await index.prepare();
      prepared = true;
    }
    return syncSearchIndex(deps);
  };
  const sync = startSearchSync(feed, {
    sync: drain,
    requestJob: options.requestJob,
    onError: (error) => options.log.warn({ err: error }, 'search index sync failed; an index-records job will retry'),
  });
  return { sync, drain };
}

/** `kura search reindex`: empties the index and fills it again from the records. */
export async function reindex(search: Search, db: { pool: pg.Pool; livestreams: LivestreamRepo }, publicUrl: string): Promise<number> {
  if (search.index === null) throw new Error('search is off (KURA_SEARCH=off): nothing to reindex');
  return reindexSearch(syncDeps(search.index, db.pool, db.livestreams, publicUrl));
}

/**
 * Worker side: keeps the search index following the records on a change feed of its own, and
 * returns the drain the `index-records` job runs (undefined when search is off).
 */
export async function followSearch(
  search: Search,
  database: Database,
  options: { publicUrl: string; requestJob: () => Promise<void>; log: Logger },
  stops: Array<() => Promise<void> | void>,
): Promise<(() => Promise<string[]>) | undefined> {
  if (search.index === null) return undefined;
  const feed = await openChangeFeed(database, options.log);
  stops.push(() => feed.close());
  const follower = await startSearchWorker(search, database, feed, options);
  stops.push(() => follower?.sync.stop());
  return follower?.drain;
}
