// Decisions: docs/decisions/0063-web-ui-conventions.md, docs/decisions/0091-private-search-keys-per-caller.md
import type { LivestreamRecord } from './api.js';
import { ApiError, getJson, withProblemWords } from './api.js';
import { m } from './i18n.js';

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
 * A key the engine refuses (a private instance's key ends with its session, or after an hour) is
 * asked for again once, and the search sent again with the new one.
 */
export async function getSearcher(): Promise<Searcher | null> {
  if ((await (searcher ??= connect())) === null) return null;
  return async (options) => {
    const used = (searcher ??= connect());
    const search = await used;
    if (search !== null) {
      try {
        return await search(options);
      } catch (error) {
        if (!isRefusedKey(error)) throw await asProblem(error);
      }
    }
    // the key was refused, or /api/search did not answer: ask for a key again, once
    if (searcher === used) searcher = null;
    const renewed = await (searcher ??= connect());
    if (renewed === null) throw new Error(m.search_unreachable());
    return renewed(options);
  };
}

/**
 * A search the engine answered with an error (Meilisearch's shape: `{message, code}`, as Kura's
 * built-in engine answers too) as the API's problems are, so the page says it in its language
 * (problem-messages.ts); any other failure as it is.
 */
async function asProblem(error: unknown): Promise<unknown> {
  const { cause, response } = (error ?? {}) as { cause?: { code?: unknown; message?: unknown }; response?: { status?: unknown } };
  if (typeof cause?.code !== 'string') return error;
  const detail = typeof cause.message === 'string' ? cause.message : String(error);
  return withProblemWords(new ApiError(typeof response?.status === 'number' ? response.status : 0, cause.code, detail));
}

/** Whether the engine refused the key (Meilisearch's `invalid_api_key`, 403). */
function isRefusedKey(error: unknown): boolean {
  return (error as { cause?: { code?: unknown } } | null)?.cause?.code === 'invalid_api_key';
}

/** A searcher with the key `GET /api/search` hands out now; null when search is off. */
async function connect(): Promise<Searcher | null> {
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
}
