// Decisions: docs/decisions/0074-cjk-words-in-search.md
import { Meilisearch, type MultiSearchQuery } from 'meilisearch';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSearch } from '../../src/wiring/search.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { buildRecord, type HistoryRecordJson } from '../support/factories.js';
import { japaneseTitles } from '../support/japanese-titles.js';
import { followSearch, type SearchFollower } from '../support/search.js';

// Japanese titles through the official Meilisearch JS client against the built-in engine
// (decision 0074): every word Intl.Segmenter makes of the titles and channel names, and every
// sampled part of a run of CJK letters, finds every record holding it.
const RECORDS = 2400;
const CHANNELS = 60;
const segmenter = new Intl.Segmenter('ja', { granularity: 'word' });
const CJK_RUN = /(?:(?=[\p{L}\p{Nl}])[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}])+/gu;
const fold = (text: string) => text.normalize('NFKC').toLowerCase();

const made = japaneseTitles(11);
const channelName = (c: number) => (c % 10 === 9 ? `Latin Radio ${c}` : made.channelName(c));
const records: HistoryRecordJson[] = Array.from({ length: RECORDS }, (_, n) =>
  buildRecord(
    {
      // ids as YouTube's: letters of both cases, digits, - and _
      id: `${n.toString(36).padStart(3, '0')}Xq-${String.fromCharCode(65 + (n % 26))}_${n % 7}zK`,
      title: made.title(n),
      channelName: channelName(n % CHANNELS),
      channelId: `UC${String(n % CHANNELS).padStart(22, '0')}`,
    },
    n,
  ),
);
const texts = new Map(records.map((r) => [r.id, fold(`${r.title} ${r.channelName}`)]));
const wordsOf = (text: string) => [...segmenter.segment(text)].filter((s) => s.isWordLike === true).map((s) => s.segment);
const recordWords = new Map([...texts].map(([id, text]) => [id, new Set(wordsOf(text))]));
const isCjk = (word: string) => (word.match(CJK_RUN) ?? []).join('') === word;

let kura: TestApp;
let follower: SearchFollower;
let client: Meilisearch;

beforeAll(async () => {
  kura = await startTestApp({}, {}, { search: (db, feed) => createSearch({ search: { kind: 'builtin' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) });
  follower = await followSearch(kura.db, { kind: 'builtin' });
  const indexed = follower.synced(
    records.map((r) => r.id),
    60_000,
  );
  await kura.load(records);
  await indexed;
  const engineUrl = `${await kura.app.listen({ port: 0, host: '127.0.0.1' })}/api/search-engine`;
  const access: { apiKey: string } = (await kura.app.inject({ url: '/api/search' })).json();
  client = new Meilisearch({ host: engineUrl, apiKey: access.apiKey });
  // the api's index applies the documents when its own notification arrives: a moment after the drain
  const counted = async () => {
    const { results } = await client.multiSearch({ queries: channelGroups().map((filter) => ({ indexUid: 'kura', q: '', limit: 0, filter })) });
    return results.reduce((sum, r) => sum + (r.estimatedTotalHits ?? 0), 0);
  };
  await vi.waitFor(async () => expect(await counted()).toBe(RECORDS), { timeout: 10_000 });
}, 120_000);
afterAll(async () => {
  await follower?.stop();
  await kura?.close();
});

/** Filters that split the records into 4 groups of 600 by channel (fewer than a search counts). */
function channelGroups(): string[] {
  const size = CHANNELS / 4;
  return Array.from({ length: 4 }, (_, g) => Array.from({ length: size }, (_, i) => `channelId = UC${String(g * size + i).padStart(22, '0')}`).join(' OR '));
}

/**
 * The ids each query finds, asked 20 at a time (a multi-search). A query expected to find 1,000
 * records or more (the most any search counts) is asked per group of channels instead.
 */
async function findAll(queries: ReadonlyArray<{ q: string; expected: Set<string> }>): Promise<Map<string, Set<string>>> {
  const groups = channelGroups();
  const asks: Array<{ q: string; query: MultiSearchQuery }> = queries.flatMap(({ q, expected }) =>
    (expected.size >= 900 ? groups : [undefined]).map((filter) => ({ q, query: { indexUid: 'kura', q, limit: 1000, attributesToRetrieve: ['id'], filter } })),
  );
  const found = new Map<string, Set<string>>();
  for (let i = 0; i < asks.length; i += 20) {
    const batch = asks.slice(i, i + 20);
    const { results } = await client.multiSearch({ queries: batch.map((a) => a.query) });
    results.forEach((result, j) => {
      const { q } = batch[j] as { q: string };
      expect(result.estimatedTotalHits, `${q}: a page short of its matches`).toBeLessThan(1000);
      const ids = found.get(q) ?? new Set<string>();
      for (const hit of result.hits) ids.add(hit.id as string);
      found.set(q, ids);
    });
  }
  return found;
}

function missed(queries: ReadonlyArray<{ q: string; expected: Set<string> }>, found: Map<string, Set<string>>): string[] {
  return queries.flatMap(({ q, expected }) => {
    const lost = [...expected].filter((id) => !found.get(q)?.has(id));
    return lost.length === 0 ? [] : [`${q}: ${lost.length} of ${expected.size} missed, e.g. ${texts.get(lost[0] as string)}`];
  });
}

describe('Japanese titles through the meilisearch client (built-in engine)', () => {
  it('finds every record holding each word the segmenter makes of the titles and channel names', async () => {
    const words = [...new Set([...recordWords.values()].flatMap((set) => [...set]))];
    const queries = words.map((q) => ({
      q,
      // a CJK word anywhere in the text; a Latin word or a number as a word
      expected: new Set(records.filter((r) => (isCjk(q) ? (texts.get(r.id) as string).includes(q) : recordWords.get(r.id)?.has(q))).map((r) => r.id)),
    }));
    expect(words.length).toBeGreaterThan(150);
    expect(words).toEqual(expect.arrayContaining(['まったり', '配信', 'ライブ', '歌', '雑談', 'コラボ', 'karaoke']));
    expect(missed(queries, await findAll(queries))).toEqual([]);
  }, 120_000);

  it('finds every record holding each sampled part (2 to 4 letters) of a run of CJK letters', async () => {
    const runs = [...new Set([...texts.values()].flatMap((text) => text.match(CJK_RUN) ?? []))].map((run) => [...run]);
    const parts = new Set<string>();
    let seed = 5;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; parts.size < 600 && i < 20_000; i++) {
      const run = runs[Math.floor(next() * runs.length)] as string[];
      const length = 2 + Math.floor(next() * 3);
      if (run.length < length) continue;
      const at = Math.floor(next() * (run.length - length + 1));
      parts.add(run.slice(at, at + length).join(''));
    }
    const queries = [...parts].map((q) => ({ q, expected: new Set(records.filter((r) => (texts.get(r.id) as string).includes(q)).map((r) => r.id)) }));
    expect(queries.length).toBe(600);
    expect(missed(queries, await findAll(queries))).toEqual([]);
  }, 120_000);

  it('ranks whole words first: a title with ライブ as a word before one with it inside a word', async () => {
    const { hits } = await client.index('kura').search('ライブ', { limit: 1000, attributesToRetrieve: ['id'] });
    const whole = (id: string) => recordWords.get(id)?.has('ライブ') === true;
    const firstPart = hits.findIndex((h) => !whole(h.id as string));
    expect(firstPart).toBeGreaterThan(0);
    expect(hits.slice(firstPart).every((h) => !whole(h.id as string))).toBe(true);
  });

  it('finds a record by its id, first', async () => {
    for (const record of [records[0], records[1234], records[RECORDS - 1]] as HistoryRecordJson[]) {
      const { hits } = await client.index('kura').search(record.id, { attributesToRetrieve: ['id', 'title'] });
      expect(hits[0]).toEqual({ id: record.id, title: record.title });
    }
  });
});
