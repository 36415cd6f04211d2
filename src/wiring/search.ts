// Decisions: docs/decisions/0097-builtin-search-in-a-thread-of-its-own.md, docs/decisions/0115-meilisearch.md
import type pg from 'pg';
import type { Logger } from 'pino';
import { createSearchOutbox } from '../adapters/db/search-outbox.js';
import { createMomentRepo } from '../adapters/db/moment-repo.js';
import { createBuiltinIndex } from '../adapters/search/builtin-index.js';
import { createBuiltinSearch } from '../adapters/search/builtin-search.js';
import { startSearchThread } from '../adapters/search/threaded-search.js';
import { createMeilisearchIndex } from '../adapters/search/meilisearch-index.js';
import type { SearchConfig } from '../config/search.js';
import type { LivestreamRepo } from '../core/records/ports.js';
import type { ChangeFeed } from '../shared/change-feed.js';
import { SEARCH_INDEX, type SearchEngine, type SearchIndex } from '../core/search/search.js';
import { reindexSearch, type SearchSyncDeps } from '../core/search/sync-search-index.js';
import { publicRecord } from '../core/record-actions/public-record.js';
import type { SearchAccessProvider } from '../http/search/search.routes.js';
import { CALLER_KEY_SECONDS } from '../http/search/caller-search-key.js';

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
 * `log` hears when that index cannot be brought up to date. `inThread`: the api's database, for
 * the built-in engine to keep its index in a thread of its own, reading it there (decision 0097).
 */
export function createSearch(
  config: { search: SearchConfig; publicUrl: string; publicRead?: boolean },
  pool: pg.Pool,
  feed: ChangeFeed | null,
  log?: Pick<Logger, 'warn'>,
  inThread?: { databaseUrl: string },
): Search {
  const { search } = config;
  const close = async () => undefined;
  if (search.kind === 'off') return { access: null, engine: null, index: null, close };
  if (search.kind === 'meilisearch') {
    const index = createMeilisearchIndex({ url: search.url, adminKey: search.adminKey });
    // a private instance hands out keys that Meilisearch refuses after an hour (decision 0091)
    const apiKey = config.publicRead === false ? () => index.tenantToken(new Date(Date.now() + CALLER_KEY_SECONDS * 1000)) : () => index.searchKey();
    return { access: async () => ({ url: search.publicUrl, apiKey: await apiKey(), index: SEARCH_INDEX }), engine: null, index, close };
  }
  const onIndexError = (error: Error) =>
    log?.warn({ err: error }, 'the search index could not be brought up to date; searches may miss recent changes until it is');
  const engine =
    inThread === undefined || feed === null
      ? createBuiltinSearch(pool, feed, { onIndexError })
      : startSearchThread(inThread.databaseUrl, pool, feed, onIndexError);
  const url = `${config.publicUrl}/api/search-engine`;
  return {
    access: async () => ({ url, apiKey: await engine.searchKey(), index: SEARCH_INDEX }),
    engine,
    index: createBuiltinIndex(pool),
    close: () => engine.close(),
  };
}

/** What a drain of the search outbox works on (null when search is off): a search document is the record as the public sees it. */
export function searchSyncDeps(search: Search, db: { pool: pg.Pool; livestreams: LivestreamRepo }, publicUrl: string): SearchSyncDeps | null {
  if (search.index === null) return null;
  // a search document is public: every search answers it as it is, so its source URL is redacted for everyone
  return {
    outbox: createSearchOutbox(db.pool),
    livestreams: db.livestreams,
    moments: createMomentRepo(db.pool),
    index: search.index,
    document: (livestream, moments) => ({ ...publicRecord(livestream, publicUrl, 'public'), moments }),
  };
}

/** `kura search reindex`: empties the index and fills it again from the records. */
export async function reindex(search: Search, db: { pool: pg.Pool; livestreams: LivestreamRepo }, publicUrl: string): Promise<number> {
  const deps = searchSyncDeps(search, db, publicUrl);
  if (deps === null) throw new Error('search is off (KURA_SEARCH=off): nothing to reindex');
  return reindexSearch(deps);
}
