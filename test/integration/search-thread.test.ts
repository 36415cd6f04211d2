import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listenForChanges } from '../../src/adapters/db/change-listener.js';
import type { ClosableChangeFeed } from '../../src/adapters/db/change-listener.js';
import { createBuiltinSearch, type BuiltinSearch } from '../../src/adapters/search/builtin-search.js';
import { importLivestreams } from '../../src/core/records/import-livestreams.js';
import type { SearchRequest } from '../../src/core/search/search.js';
import { buildRecord, buildRecords } from '../support/factories.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { followSearch, type SearchFollower } from '../support/search.js';

// The built-in engine in a thread of its own (decision 0097), as `kura serve` runs it: the thread
// is started from the build (dist/), since a thread runs JavaScript files; the documents are real
// rows, indexed by the worker's own drain, and the thread reads them on its own connections and
// follows them through the change feed it is given. What it answers is compared with the same engine in this thread.
type Threaded = typeof import('../../src/adapters/search/threaded-search.js');
const { startSearchThread, MAX_SEARCHES_HELD } = (await import(new URL('../../dist/src/adapters/search/threaded-search.js', import.meta.url).href)) as Threaded;

let db: TestDatabase;
let indexer: SearchFollower;
let feed: ClosableChangeFeed;
let here: BuiltinSearch;
let threaded: BuiltinSearch;
beforeAll(async () => {
  db = await createTestDatabase();
  indexer = await followSearch(db, { kind: 'builtin' });
  await importLivestreams(db, buildRecords(40));
  await indexer.drain();
  feed = await listenForChanges(db.url, () => undefined);
  here = createBuiltinSearch(db.pool, feed);
  threaded = startSearchThread(db.url, db.pool, feed);
});
afterAll(async () => {
  await threaded?.close();
  await here?.close();
  await feed?.close();
  await indexer?.stop();
  await db?.drop();
});

const request = (overrides: Partial<SearchRequest> = {}): SearchRequest => ({ q: '', offset: 0, limit: 20, filter: null, sort: [], ...overrides });

/** The thread's answer once its index is loaded (it answers `search_warming` while loading). */
async function loaded<T>(ask: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await ask();
    } catch (error) {
      if ((error as { code?: string }).code !== 'search_warming') throw error;
    }
  }
}

describe('the built-in engine in a thread of its own', () => {
  it('answers every search as the engine in the api thread does: the same documents, in the same order, the same count and words', async () => {
    const asked = [
      request(),
      request({ q: 'karaoke', limit: 5 }),
      request({ q: '', sort: [{ field: 'length', order: 'desc' }], limit: 7 }),
      request({ q: 'karaoek' }), // a typo, corrected
      request({ q: 'night', filter: { kind: 'term', field: 'finished', equal: true, value: true }, offset: 3 }),
    ];
    expect(await loaded(() => threaded.count())).toBe(40);
    expect(threaded.warming()).toBe(false);
    for (const one of asked) {
      const [theirs, ours] = [await threaded.search(one), await here.search(one)];
      expect(theirs.documents.length).toBeGreaterThan(0);
      expect(theirs).toEqual(ours);
    }
  });

  it('follows the records changed after it loaded them', async () => {
    await loaded(() => threaded.count());
    await importLivestreams(db, [buildRecord({ id: 'threadNew01', title: 'Zebracorn marathon' }, 900)]);
    await indexer.drain();
    // the thread hears the change through the api's feed, passed on to it: searched until it has applied it
    let found: string[] = [];
    while (found.length === 0) found = (await threaded.search(request({ q: 'zebracorn' }))).documents;
    expect(JSON.parse(found[0] as string)).toMatchObject({ id: 'threadNew01', title: 'Zebracorn marathon' });
    expect(await threaded.count()).toBe(41);
  });

  it("carries the engine's refusals to the api as they were thrown: code, kind and words", async () => {
    await loaded(() => threaded.count());
    const refused = await threaded.search(request({ q: 'x'.repeat(3000) })).catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'AppError', kind: 'invalid', code: 'invalid_search_q' });
  });

  it(`refuses a search at once while it holds ${MAX_SEARCHES_HELD}, as Meilisearch's full search queue does, and answers the others`, async () => {
    await loaded(() => threaded.count());
    const asked = Array.from({ length: MAX_SEARCHES_HELD + 3 }, () => threaded.search(request({ q: 'karaoke' })).catch((error: unknown) => error));
    const answers = await Promise.all(asked);
    const refused = answers.filter((answer) => (answer as { code?: string }).code === 'too_many_search_requests');
    expect(refused).toHaveLength(3);
    expect(refused[0]).toMatchObject({ kind: 'unavailable', retryAfterSeconds: 1 });
    expect(answers.slice(0, MAX_SEARCHES_HELD).every((answer) => Array.isArray((answer as { documents?: unknown }).documents))).toBe(true);
    // the queue empties as it answers: the next search is answered
    expect((await threaded.search(request({ q: 'karaoke' }))).documents.length).toBeGreaterThan(0);
  });

  it('starts a thread that died again at most every 5 s, answering search_warming meanwhile without one', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const died: Error[] = [];
      // a heap too small to load the thread's modules: each thread dies at its start, as one whose index outgrew its heap
      // (4 MB: with less, Node 24's V8 cannot set the thread up at all, and that takes the whole process down)
      const engine = startSearchThread(db.url, db.pool, feed, (error) => died.push(error), 4);
      await expect(engine.search(request())).rejects.toMatchObject({ code: 'search_warming' }); // held by the first thread, which died
      expect(died).toHaveLength(1);
      await expect(engine.search(request())).rejects.toMatchObject({ code: 'search_warming' }); // within 5 s: no thread started
      expect(died).toHaveLength(1);
      vi.setSystemTime(Date.now() + 5_000);
      await expect(engine.search(request())).rejects.toMatchObject({ code: 'search_warming' }); // a new thread, which died too
      expect(died).toHaveLength(2);
      await engine.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends its thread when closed, and a search then answers search_warming', async () => {
    const engine = startSearchThread(db.url, db.pool, feed);
    await loaded(() => engine.count());
    await engine.close();
    await expect(engine.search(request())).rejects.toMatchObject({ code: 'search_warming' });
  });
});
