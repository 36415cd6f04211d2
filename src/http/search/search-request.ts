// Decisions: docs/decisions/0094-builtin-engine-as-meilisearch-bounded.md
import type { HitFormat } from '../../core/search/hit-format.js';
import { MAX_TOTAL_HITS, SORT_FIELDS, type SearchHits, type SearchRequest, type SortField } from '../../core/search/search.js';
import { invalidRequest } from './meili-error.js';
import { parseFilter } from './search-filter.js';
import { LivestreamRecordSchema } from '../livestreams/record.schema.js';

/** Longest query accepted, in characters (Meilisearch itself reads only the first 10 words). */
export const MAX_Q_LENGTH = 1000;
/** Words of a query that are searched; the rest are ignored, as Meilisearch does. */
export const MAX_Q_WORDS = 10;
/**
 * Longest highlight tag, in characters: clients send `<em>`, `<mark>`, `__ais-highlight__` or a
 * tag with a class; each highlighted word of each hit carries two tags, so a longer one only
 * multiplies the answer (decision 0050).
 */
export const MAX_HIGHLIGHT_TAG_LENGTH = 128;
const HIGHLIGHTABLE = ['title', 'channelName', 'moments'] as const;
/** The attributes a hit has: any other asked is left out (as Meilisearch does), and each is picked once. */
const RECORD_ATTRIBUTES: ReadonlySet<string> = new Set([...Object.keys(LivestreamRecordSchema.properties), 'moments']);

/** A search as a Meilisearch client asks it, read from a JSON body or a query string; how its hits are shown is `request.format`. */
export interface ParsedSearch {
  request: SearchRequest & { format: HitFormat };
  paging: { kind: 'offset'; offset: number; limit: number } | { kind: 'page'; page: number; hitsPerPage: number };
}

/** Throws MeiliError (`invalid_search_*`) for a parameter Meilisearch would refuse. */
export function parseSearch(input: Record<string, unknown>, fromQueryString: boolean): ParsedSearch {
  const list = (name: string, code: string): string[] | undefined => {
    const value = input[name];
    if (value === undefined || value === null) return undefined;
    if (fromQueryString && typeof value === 'string')
      return value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    throw invalidRequest(code, `Invalid value type at \`.${name}\`: expected an array of strings.`);
  };
  const integer = (name: string, code: string, fallback: number, min: number): number => {
    const value = input[name];
    if (value === undefined || value === null) return fallback;
    const n = typeof value === 'string' && fromQueryString && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min) {
      throw invalidRequest(code, `Invalid value in parameter \`${name}\`: expected a whole number of ${min} or more.`);
    }
    return n;
  };
  const q = input.q ?? '';
  if (typeof q !== 'string') throw invalidRequest('invalid_search_q', 'Invalid value type at `.q`: expected a string.');
  if (q.length > MAX_Q_LENGTH) throw invalidRequest('invalid_search_q', `The query is longer than ${MAX_Q_LENGTH} characters.`);
  const filterInput = input.filter;
  if (fromQueryString && Array.isArray(filterInput)) throw invalidRequest('invalid_search_filter', 'Give `filter` once in a query string.');
  const filter = parseFilter(filterInput);
  const sort = (list('sort', 'invalid_search_sort') ?? []).map((item) => {
    const [field, order, ...rest] = item.split(':');
    if (!(SORT_FIELDS as readonly string[]).includes(field ?? '') || (order !== 'asc' && order !== 'desc') || rest.length > 0) {
      throw invalidRequest('invalid_search_sort', `Invalid sort \`${item}\`: expected \`attribute:asc\` or \`attribute:desc\` on ${SORT_FIELDS.join(', ')}.`);
    }
    return { field: field as SortField, order: order as 'asc' | 'desc' };
  });
  const paged = input.page !== undefined || input.hitsPerPage !== undefined;
  const paging: ParsedSearch['paging'] = paged
    ? { kind: 'page', page: integer('page', 'invalid_search_page', 1, 0), hitsPerPage: integer('hitsPerPage', 'invalid_search_hits_per_page', 20, 0) }
    : { kind: 'offset', offset: integer('offset', 'invalid_search_offset', 0, 0), limit: integer('limit', 'invalid_search_limit', 20, 0) };
  const window =
    paging.kind === 'page'
      ? { offset: Math.max(0, paging.page - 1) * paging.hitsPerPage, limit: paging.page === 0 ? 0 : paging.hitsPerPage }
      : { offset: paging.offset, limit: paging.limit };
  const retrieve = list('attributesToRetrieve', 'invalid_search_attributes_to_retrieve') ?? null;
  const toHighlight = list('attributesToHighlight', 'invalid_search_attributes_to_highlight') ?? [];
  const tag = (name: string, fallback: string) => {
    const value = input[name] ?? fallback;
    const code = `invalid_search_${name === 'highlightPreTag' ? 'highlight_pre_tag' : 'highlight_post_tag'}`;
    if (typeof value !== 'string') throw invalidRequest(code, `\`${name}\` is a string.`);
    if (value.length > MAX_HIGHLIGHT_TAG_LENGTH) throw invalidRequest(code, `\`${name}\` is longer than ${MAX_HIGHLIGHT_TAG_LENGTH} characters.`);
    return value;
  };
  return {
    request: {
      q: q
        .split(/\s+/)
        .filter((w) => w !== '')
        .slice(0, MAX_Q_WORDS)
        .join(' '),
      offset: Math.min(window.offset, MAX_TOTAL_HITS),
      limit: window.limit,
      filter,
      sort,
      format: {
        retrieve: retrieve === null || retrieve.includes('*') ? null : [...new Set(retrieve)].filter((name) => RECORD_ATTRIBUTES.has(name)),
        formatted: toHighlight.length > 0,
        // only what can be highlighted, once: the work per hit stays that of three attributes
        highlight: HIGHLIGHTABLE.filter(
          (name) => toHighlight.includes(name) || (name === 'moments' && toHighlight.includes('moments.text')) || toHighlight.includes('*'),
        ),
        tags: { pre: tag('highlightPreTag', '<em>'), post: tag('highlightPostTag', '</em>') },
      },
    },
    paging,
  };
}

/** The answer Meilisearch gives for this search, as JSON text: the hits as the engine formatted them (HitFormat), then the paging. */
export function presentSearch(parsed: ParsedSearch, hits: SearchHits, q: string, startedAt: number): string {
  const processingTimeMs = Math.round(performance.now() - startedAt);
  let rest: Record<string, unknown>;
  if (parsed.paging.kind === 'page') {
    const { page, hitsPerPage } = parsed.paging;
    rest = { query: q, processingTimeMs, hitsPerPage, page, totalPages: hitsPerPage === 0 ? 0 : Math.ceil(hits.total / hitsPerPage), totalHits: hits.total };
  } else {
    rest = { query: q, processingTimeMs, limit: parsed.paging.limit, offset: parsed.paging.offset, estimatedTotalHits: hits.total };
  }
  return `{"hits":[${hits.documents.join(',')}],${JSON.stringify(rest).slice(1)}`;
}
