import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { importLivestreams } from '../../src/core/records/import-livestreams.js';
import { createSearch } from '../../src/wiring/search.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { buildRecords } from '../support/factories.js';
import { followSearch } from '../support/search.js';

// An api process starting over documents already indexed loads them all before it can search
// (docs/decisions/0048); a million take a minute. The load is held here by a lock on
// search_documents, which its reads wait for, taken before the app starts and released by the test.
const records = buildRecords(30);
/** Longer than a search waits for the load, far shorter than a client's patience. */
const PROMPT_MS = 4000;

let kura: TestApp;
let gate: pg.Client;
let key: string;

beforeAll(async () => {
  kura = await startTestApp(
    {},
    {},
    {
      search: async (db, feed) => {
        const worker = await followSearch(db, { kind: 'builtin' });
        await importLivestreams(db, records);
        await worker.drain();
        await worker.stop();
        gate = new pg.Client({ connectionString: db.url });
        await gate.connect();
        await gate.query('begin');
        await gate.query('lock table search_documents in access exclusive mode');
        return createSearch({ search: { kind: 'builtin' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed);
      },
    },
  );
  key = (await kura.app.inject({ url: '/api/search' })).json<{ apiKey: string }>().apiKey;
});
afterAll(async () => {
  await gate?.query('rollback').catch(() => undefined);
  await gate?.end();
  await kura?.close();
});

/** The answer to `request`, or a failure naming it if none comes within PROMPT_MS. */
async function promptly<T>(what: string, request: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${PROMPT_MS} ms`)), PROMPT_MS)));
  try {
    return await Promise.race([request, late]);
  } finally {
    clearTimeout(timer);
  }
}

const search = (q: string) =>
  kura.app.inject({ method: 'POST', url: '/api/search-engine/indexes/kura/search', headers: { authorization: `Bearer ${key}` }, payload: { q, limit: 100 } });

describe('the built-in engine while its index is loaded at start', () => {
  it('answers 503 search_warming with Retry-After at once, on searches and health, then searches once loaded', async () => {
    const health = await promptly('health', kura.app.inject({ url: '/api/search-engine/health' }));
    expect(health.statusCode).toBe(503);
    expect(health.headers['retry-after']).toBe('5');
    expect(health.json()).toMatchObject({ code: 'search_warming', type: 'system' });

    const warming = await promptly('a search', search('karaoke'));
    expect(warming.statusCode).toBe(503);
    expect(warming.headers['retry-after']).toBe('5');
    expect(warming.json()).toMatchObject({ code: 'search_warming', message: expect.stringMatching(/being loaded/) });

    const multi = await promptly(
      'a multi-search',
      kura.app.inject({
        method: 'POST',
        url: '/api/search-engine/multi-search',
        headers: { authorization: `Bearer ${key}` },
        payload: { queries: [{ indexUid: 'kura', q: 'night' }] },
      }),
    );
    expect(multi.statusCode).toBe(503);
    expect(multi.json()).toMatchObject({ code: 'search_warming', message: expect.stringMatching(/^Inside `\.queries\[0\]`: /) });

    await gate.query('commit');
    await vi.waitFor(async () => expect((await search('karaoke')).statusCode).toBe(200), { timeout: 10_000 });
    const found = (await search('karaoke')).json<{ hits: Array<{ id: string }> }>();
    expect(new Set(found.hits.map((hit) => hit.id))).toEqual(new Set(records.map((r) => r.id)));
    const ready = await kura.app.inject({ url: '/api/search-engine/health' });
    expect([ready.statusCode, ready.json()]).toEqual([200, { status: 'available' }]);
  });
});
