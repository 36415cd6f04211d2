// Decisions: docs/decisions/0097-builtin-search-in-a-thread-of-its-own.md
import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../../core/errors.js';
import { createPool } from '../db/pool.js';
import { createBuiltinSearch } from './builtin-search.js';
import { passedOnFeed } from './passed-on-feed.js';
import type { SearchHits } from '../../core/search/search.js';
import type { CarriedError, SearchThreadAnswer, SearchThreadAsk, SearchThreadData } from './search-thread-messages.js';

/*
 * The built-in engine's index (a million documents take a gigabyte and more) in a thread of its
 * own, beside the api's (threaded-search.ts): the api's heap and event loop no longer hold or walk
 * it, so a page or a /healthz never waits for a search or for the collector of the index's heap.
 * It reads the database on connections of its own and follows the changes the api's change feed
 * passes on (one LISTEN connection per process: the connection budget, decision 0107).
 */
const port = parentPort;
if (port === null) throw new Error('search-thread.ts runs as the search thread of an api');
const { databaseUrl, feedConnected } = workerData as SearchThreadData;
const post = (answer: SearchThreadAnswer) => port.postMessage(answer);
/** The connections the search thread's pool may hold, beside the api's own (the connection budget, README "Scaling out"). */
const SEARCH_THREAD_CONNECTIONS = 3;

const pool = createPool({ connectionString: databaseUrl, max: SEARCH_THREAD_CONNECTIONS, applicationName: 'kura search' });
const feed = passedOnFeed(feedConnected);
// the api reads `warming` without asking: told as it changes (the load at start, another after a
// truncate), and with each answer
const engine = createBuiltinSearch(pool, feed, {
  onIndexError: (error) => post({ kind: 'index_error', message: error.message }),
  onWarming: (warming) => post({ kind: 'warming', warming }),
});
const answer = (id: number, outcome: { result: SearchHits | number } | { error: CarriedError }) =>
  post({ kind: 'answer', id, warming: engine.warming(), ...outcome });

port.on('message', (ask: SearchThreadAsk) => {
  if (ask.kind === 'close') return void close();
  if (ask.kind === 'change') return feed.pass(ask.payload, ask.connected);
  const work = ask.kind === 'search' ? engine.search(ask.request) : engine.count();
  work.then(
    (result) => answer(ask.id, { result }),
    (error: unknown) =>
      answer(ask.id, {
        error:
          error instanceof AppError
            ? { app: { kind: error.kind, code: error.code, detail: error.detail, retryAfterSeconds: error.retryAfterSeconds } }
            : { message: error instanceof Error ? error.message : String(error) },
      }),
  );
});

async function close(): Promise<void> {
  await engine.close();
  await pool.end();
  port?.close();
}
