import type { LivestreamRepo } from '../records/ports.js';

/**
 * Past this many records, Meilisearch is the engine to run: the built-in one keeps every document's
 * words and kept orders in each api process's memory and loads them at each start (README "Search").
 */
export const BUILTIN_SEARCH_RECORDS = 1_000_000;

/** What the operator is told about the search engine for an archive of this size; null: nothing to say. */
export async function engineAdvice(engine: 'builtin' | 'meilisearch' | 'off', livestreams: Pick<LivestreamRepo, 'totals'>): Promise<string | null> {
  if (engine !== 'builtin') return null;
  const { all } = await livestreams.totals();
  if (all <= BUILTIN_SEARCH_RECORDS) return null;
  return (
    `the archive holds ${all} records, past the ${BUILTIN_SEARCH_RECORDS} the built-in search engine is meant for: each api process ` +
    'keeps its index in memory and loads it at each start; run Meilisearch (KURA_SEARCH=meilisearch, README "Search")'
  );
}
