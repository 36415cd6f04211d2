import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearch } from '../../src/wiring/search.js';
import type { SearchEngine } from '../../src/core/search/search.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { buildRecord } from '../support/factories.js';
import { followSearch, type SearchFollower } from '../support/search.js';

// PostgreSQL's parser drops a word of 2,047 bytes or more (UTF-8) from a tsvector, from a query's
// words as from the documents'; a query whose word was dropped asked for less than it said, down to
// nothing at all, which matched every record. Such a word is refused instead.
const records = [
  buildRecord({ title: 'まったり配信ライブ' }, 0),
  buildRecord({ title: 'Karaoke night' }, 1),
  buildRecord({ title: 'ไลฟ์สด karaoke' }, 2),
  buildRecord({ title: 'Minecraft survival' }, 3),
];

let kura: TestApp;
let follower: SearchFollower;
let engine: SearchEngine;
let key: string;

beforeAll(async () => {
  kura = await startTestApp({}, {}, { search: (db, feed) => createSearch({ search: { kind: 'builtin' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) });
  follower = await followSearch(kura.db, { kind: 'builtin' });
  engine = follower.search.engine as SearchEngine;
  const indexed = follower.synced(records.map((r) => r.id));
  await kura.load(records);
  await indexed;
  key = (await kura.app.inject({ url: '/api/search' })).json<{ apiKey: string }>().apiKey;
});
afterAll(async () => {
  await follower?.search.close();
  await follower?.stop();
  await kura?.close();
});

const search = (q: string) =>
  kura.app.inject({ method: 'POST', url: '/api/search-engine/indexes/kura/search', headers: { authorization: `Bearer ${key}` }, payload: { q } });
const TOO_LONG = /^The query's word starting "(.{12})…" is (\d+) bytes long in UTF-8; words are searched up to 2046 bytes/;

describe('a query word longer than PostgreSQL keeps', () => {
  it('is refused as invalid_search_q, naming the word and the limit, from 683 Japanese letters on (682 are searched)', async () => {
    const longest = await search('配'.repeat(682));
    expect([longest.statusCode, longest.json().hits]).toEqual([200, []]);
    for (const q of ['配'.repeat(683), `${'配'.repeat(683)} karaoke`, `karaoke ${'信'.repeat(900)}`]) {
      const answer = await search(q);
      expect(answer.statusCode, q.slice(0, 20)).toBe(400);
      const body = answer.json<{ code: string; type: string; message: string }>();
      expect(body).toMatchObject({ code: 'invalid_search_q', type: 'invalid_request' });
      const [, start, bytes] = TOO_LONG.exec(body.message) ?? [];
      expect(start).toBe(q.includes('信') ? '信'.repeat(12) : '配'.repeat(12));
      expect(Number(bytes)).toBe(q.includes('信') ? 2700 : 2049);
    }
  });

  it('is refused in any script, and inside a hyphenated word, not only CJK', async () => {
    for (const q of ['ก'.repeat(683), `x-${'ก'.repeat(700)}`]) {
      const answer = await search(q);
      expect([answer.statusCode, answer.json().code], q.slice(0, 10)).toEqual([400, 'invalid_search_q']);
      expect(answer.json().message).toMatch(TOO_LONG);
    }
  });

  it('is refused inside a multi-search, naming the query', async () => {
    const answer = await kura.app.inject({
      method: 'POST',
      url: '/api/search-engine/multi-search',
      headers: { authorization: `Bearer ${key}` },
      payload: {
        queries: [
          { indexUid: 'kura', q: 'karaoke' },
          { indexUid: 'kura', q: '配'.repeat(700) },
        ],
      },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: 'invalid_search_q', message: expect.stringMatching(/^Inside `\.queries\[1\]`: The query's word starting/) });
  });

  it('is refused by the engine itself in plain ASCII letters too, split without PostgreSQL (the API caps q at 1,000 characters)', async () => {
    const request = { offset: 0, limit: 20, filter: null, sort: [] };
    await expect(engine.search({ ...request, q: 'a'.repeat(2047) })).rejects.toMatchObject({ code: 'invalid_search_q', kind: 'invalid' });
    expect((await engine.search({ ...request, q: 'a'.repeat(2046) })).total).toBe(0);
  });
});
