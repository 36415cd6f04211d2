// Decisions: docs/decisions/0063-web-ui-conventions.md
import type { LivestreamRecord } from './api.js';
import { getJson } from './api.js';

/** What `GET /api/search` hands out. */
export interface SearchConfig {
  enabled: boolean;
  url?: string;
  apiKey?: string;
  index?: string;
}

export interface SearchOptions {
  q: string;
  channelId: string | null;
  sort: 'asc' | 'desc';
  page: number;
  hitsPerPage: number;
}
export interface SearchResult {
  records: LivestreamRecord[];
  total: number;
}
export type Searcher = (options: SearchOptions) => Promise<SearchResult>;

let searcher: Promise<Searcher | null> | null = null;

/**
 * The search engine the instance hands out, through the meilisearch client (loaded only when
 * search is on); null when search is off or the API does not offer it, so history stays plain.
 */
export function getSearcher(): Promise<Searcher | null> {
  searcher ??= (async () => {
    let config: SearchConfig;
    try {
      config = await getJson<SearchConfig>('/api/search');
    } catch {
      return null;
    }
    if (!config.enabled || !config.url) return null;
    const { Meilisearch } = await import('meilisearch');
    const index = new Meilisearch({ host: new URL(config.url, location.href).href, apiKey: config.apiKey }).index(config.index ?? 'kura');
    return async ({ q, channelId, sort, page, hitsPerPage }) => {
      const result = await index.search<LivestreamRecord>(q, {
        // the history is the archive: finished records only, as /api/history lists by default
        filter: channelId === null ? ['finished = true'] : ['finished = true', `channelId = ${JSON.stringify(channelId)}`],
        // the chosen order holds while searching too: what the Sort control says is what is shown
        sort: [`scheduledStart:${sort}`],
        page: page + 1,
        hitsPerPage,
      });
      // with `page`, Meilisearch answers an exact `totalHits` (its types do not narrow on the params)
      const counted = result as { totalHits?: number; estimatedTotalHits?: number };
      return { records: result.hits, total: counted.totalHits ?? counted.estimatedTotalHits ?? result.hits.length };
    };
  })();
  return searcher;
}
