import type { ErrorCode, ErrorKind } from '../../core/errors.js';
import type { SearchHits, SearchRequest } from '../../core/search/search.js';

/** What the search thread starts with. */
export interface SearchThreadData {
  databaseUrl: string;
  /** Whether the api's change feed is connected as the thread starts (its changes then arrive as `change` asks). */
  feedConnected: boolean;
}

/** What the api asks of the search thread. */
export type SearchThreadAsk =
  | { kind: 'search'; id: number; request: SearchRequest }
  | { kind: 'count'; id: number }
  /** A notification of the api's change feed, passed on: the index follows the same feed as the api's cache. */
  | { kind: 'change'; payload: string | undefined; connected: boolean }
  | { kind: 'close' };

/** An error as it crosses threads: an AppError's fields (its class is made again on the api's side), or another's message. */
export type CarriedError = { app: { kind: ErrorKind; code: ErrorCode; detail: string; retryAfterSeconds: number | undefined } } | { message: string };

/** What the search thread tells the api; each answer says too whether the index is loading. */
export type SearchThreadAnswer =
  | { kind: 'answer'; id: number; warming: boolean; result: SearchHits | number }
  | { kind: 'answer'; id: number; warming: boolean; error: CarriedError }
  | { kind: 'warming'; warming: boolean }
  | { kind: 'index_error'; message: string };
