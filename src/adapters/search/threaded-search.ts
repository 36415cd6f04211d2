// Decisions: docs/decisions/0097-builtin-search-in-a-thread-of-its-own.md, docs/decisions/0107-connection-budget.md
import { Worker } from 'node:worker_threads';
import type pg from 'pg';
import type { ChangeFeed } from '../../shared/change-feed.js';
import { AppError } from '../../core/errors.js';
import { searchWarming, type SearchHits } from '../../core/search/search.js';
import { searchKeyOf } from './builtin-index.js';
import type { BuiltinSearch } from './builtin-search.js';
import type { CarriedError, SearchThreadAnswer, SearchThreadAsk, SearchThreadData } from './search-thread-messages.js';

/**
 * Searches the search thread may hold at once, its own queue included: one for each multi-search or
 * search in progress (a multi-search asks its queries one after another). Past it a search is
 * refused at once, as Meilisearch's search queue refuses (503 `too_many_search_requests`), rather
 * than waiting behind more work than a second's.
 */
export const MAX_SEARCHES_HELD = 64;

/** The least time between two starts of the search thread. */
const RESTART_MS = 5000;

type Waiting = { resolve: (result: SearchHits | number) => void; reject: (error: Error) => void };
type Ask = { kind: 'search'; request: Parameters<BuiltinSearch['search']>[0] } | { kind: 'count' };

/**
 * The built-in engine served from a thread of its own (search-thread.ts), for an api on
 * `databaseUrl`; `pool` (the api's) reads the search key. A thread that stops unasked (its heap
 * exhausted, an uncaught error) is told to `onIndexError`; the searches it held answer
 * `search_warming`, and the next search starts a new thread (at most one every RESTART_MS), which
 * loads the index again.
 */
export function startSearchThread(
  databaseUrl: string,
  pool: pg.Pool,
  feed: ChangeFeed,
  onIndexError: (error: Error) => void = () => undefined,
  /** The thread's heap limit in MB (V8's old generation); unset: V8's own. */
  heapMb?: number,
): BuiltinSearch {
  let nextId = 0;
  let running: { thread: Worker; exited: Promise<void>; warming: boolean; waiting: Map<number, Waiting> } | null = null;
  let closed = false;
  let startedAt = 0;

  const start = () => {
    startedAt = Date.now();
    const thread = new Worker(new URL('./search-thread.js', import.meta.url), {
      workerData: { databaseUrl, feedConnected: feed.connected } satisfies SearchThreadData,
      ...(heapMb === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: heapMb } }),
    });
    const state = { thread, exited: Promise.resolve(), warming: true, waiting: new Map<number, Waiting>() };
    let failure: Error | null = null;
    thread.on('message', (answer: SearchThreadAnswer) => {
      if (answer.kind === 'warming') state.warming = answer.warming;
      else if (answer.kind === 'index_error') onIndexError(new Error(answer.message));
      else {
        state.warming = answer.warming;
        const waiting = state.waiting.get(answer.id);
        state.waiting.delete(answer.id);
        if ('error' in answer) waiting?.reject(revived(answer.error));
        else waiting?.resolve(answer.result);
      }
    });
    thread.on('error', (error) => (failure = error));
    state.exited = new Promise<void>((resolve) =>
      thread.once('exit', (code) => {
        if (running === state) running = null;
        for (const waiting of state.waiting.values()) waiting.reject(searchWarming());
        if (!closed) onIndexError(failure ?? new Error(`the search thread stopped (exit code ${code})`));
        resolve();
      }),
    );
    return state;
  };

  const ask = (what: Ask): Promise<SearchHits | number> => {
    if (closed) return Promise.reject(searchWarming());
    // a thread that keeps dying (the database away at its start) is started again at most every RESTART_MS
    if (running === null && Date.now() - startedAt < RESTART_MS) return Promise.reject(searchWarming());
    const state = (running ??= start());
    if (state.waiting.size >= MAX_SEARCHES_HELD) return Promise.reject(tooManySearches());
    const id = nextId++;
    return new Promise((resolve, reject) => {
      state.waiting.set(id, { resolve, reject });
      state.thread.postMessage({ ...what, id } satisfies SearchThreadAsk);
    });
  };

  // the thread follows the api's feed: one LISTEN connection per process (decision 0107)
  feed.onChange((payload) => running?.thread.postMessage({ kind: 'change', payload, connected: feed.connected } satisfies SearchThreadAsk));
  running = start(); // the index loads before the first search
  return {
    search: async (request) => (await ask({ kind: 'search', request })) as SearchHits,
    count: async () => (await ask({ kind: 'count' })) as number,
    warming: () => running?.warming ?? true,
    searchKey: searchKeyOf(pool),
    async close() {
      closed = true;
      if (running === null) return;
      running.thread.postMessage({ kind: 'close' } satisfies SearchThreadAsk);
      await running.exited;
    },
  };
}

/** The thread's error as the api's routes expect it: an AppError again (its class does not cross threads). */
function revived(error: CarriedError): Error {
  if ('app' in error) return new AppError(error.app.kind, error.app.code, error.app.detail, error.app.retryAfterSeconds);
  return new Error(error.message);
}

/** Meilisearch's answer when its search queue is full: unavailable, try again in a second. */
export function tooManySearches(): AppError {
  return new AppError('unavailable', 'too_many_search_requests', 'Too many searches are waiting; try again in a second.', 1);
}
