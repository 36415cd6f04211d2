import { AppError } from '../errors.js';
import type { HitFormat } from './hit-format.js';

/** The index name clients are given, as Meilisearch clients of the original interface expect. */
export const SEARCH_INDEX = 'kura';

/**
 * A search document, one per record: what the API shows of the record (built by the http
 * presenter, `LivestreamRecord` in src/http/livestreams/record.schema.ts, the one definition of
 * that shape). Engines read `id`, `title`, `channelName` and the FILTER_FIELDS and SORT_FIELDS.
 */
export interface SearchDocument {
  readonly id: string;
  readonly [field: string]: unknown;
}

/** Where the index lives: the engine that serves searches (built-in or Meilisearch). */
export interface SearchIndex {
  /** Creates the index and its settings when missing; safe to call at every start. */
  prepare(): Promise<void>;
  /**
   * Adds or replaces documents by id. Answers those the engine refused for good (after its own
   * retries), which it does not hold; rejects when it cannot say (unreachable, failing whole).
   */
  upsert(documents: readonly SearchDocument[]): Promise<RejectedDocument[]>;
  remove(ids: readonly string[]): Promise<void>;
  /** Empties the index (reindex starts from this). */
  clear(): Promise<void>;
}

/** What `GET /api/search` hands clients: the engine URL, a search-only key, the index. */
export interface SearchAccess {
  url: string;
  apiKey: string;
  index: string;
}

/** A record's search document the engine refused, and the engine's reason. */
export interface RejectedDocument {
  id: string;
  reason: string;
}

/** A moment of a record as its search document carries it: where, and what. */
export interface MomentText {
  at: number;
  text: string;
}

/** The moments of records, by time, as their search documents carry them. */
export interface MomentTexts {
  textsOf(livestreamIds: readonly string[]): Promise<ReadonlyMap<string, MomentText[]>>;
}

/** Records whose search document is out of date, oldest change first (a transactional outbox). */
export interface SearchOutbox {
  /**
   * Takes up to `limit` pending changes, one drainer at a time across processes, hands their
   * record ids to `apply` and forgets them once it resolves; a rejection keeps them pending. The
   * documents `apply` answers the engine refused are marked to be indexed again an hour later (or
   * by a reindex, or their record's next change). Resolves with how many changes were taken (0:
   * nothing pending).
   */
  drain(limit: number, apply: (livestreamIds: string[]) => Promise<readonly RejectedDocument[]>): Promise<number>;
  /** Queues every record anew (a reindex), running `beforeQueue` under the drain lock; resolves with how many. */
  queueAll(beforeQueue: () => Promise<void>): Promise<number>;
}

export const FILTER_FIELDS = ['finished', 'status', 'channelId', 'platform'] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];
export const SORT_FIELDS = ['scheduledStart', 'length', 'fileSizeBytes'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

/** A filter expression: terms joined by AND / OR. */
export type SearchFilter = { kind: 'and' | 'or'; items: SearchFilter[] } | { kind: 'term'; field: FilterField; equal: boolean; value: string | boolean };

/** A search as the built-in engine runs it. */
export interface SearchRequest {
  q: string;
  offset: number;
  limit: number;
  filter: SearchFilter | null;
  /** Empty: best match first (see docs/decisions/0050-builtin-engine-as-meilisearch.md). */
  sort: Array<{ field: SortField; order: 'asc' | 'desc' }>;
  /** How the hits are shown; absent: as the index keeps them. */
  format?: HitFormat;
}

/** A word a search matched, normalised (lower case, no accents): for highlighting. */
export interface MatchedWord {
  word: string;
  /** The query's last word matches as a prefix (search as you type). */
  prefix: boolean;
}

export interface SearchHits {
  /** Each a SearchDocument as the JSON text the index keeps: handed on as is unless reshaped. */
  documents: string[];
  /** Matching documents, counted up to MAX_TOTAL_HITS. */
  total: number;
  words: MatchedWord[];
}

/** Hits are counted, and reachable by paging, up to this many (Meilisearch's maxTotalHits default). */
export const MAX_TOTAL_HITS = 1000;

/** The answer while the built-in engine's index is being loaded (at start): unavailable, try again in 5 s. */
export function searchWarming(): AppError {
  return new AppError('unavailable', 'search_warming', 'The search index is being loaded (after a start or a reindex); try again in a few seconds.', 5);
}

/**
 * The built-in engine's reading side. `search` and `count` throw AppError `search_warming`
 * (unavailable, with Retry-After) while the index is being loaded; `search`, `invalid_search_q`
 * for a query word too long to search.
 */
export interface SearchEngine {
  search(request: SearchRequest): Promise<SearchHits>;
  /** The search-only key clients are given; the same in every process. */
  searchKey(): Promise<string>;
  /** Documents in the index. */
  count(): Promise<number>;
  /** Whether the index is being loaded (at start): searches answer `search_warming` meanwhile. */
  warming(): boolean;
}
