import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEILISEARCH_INDEX_SETTINGS } from '../../src/adapters/search/meilisearch-index.js';
import type { SearchConfig } from '../../src/config/search.js';
import { createSearch, reindex } from '../../src/wiring/search.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { buildRecords } from '../support/factories.js';
import { MeilisearchDouble } from '../support/meilisearch-double.js';
import { followSearch, type SearchFollower } from '../support/search.js';

// KURA_SEARCH=meilisearch against a MEILISEARCH DOUBLE (test/support/meilisearch-double.ts): no
// Meilisearch server can run here, so these tests check the requests Kura makes, not searches.
const ADMIN_KEY = 'admin-key-that-must-never-leave-the-server';
let double: MeilisearchDouble;
let kura: TestApp;
let follower: SearchFollower;
let config: SearchConfig;
const records = buildRecords(30, { unfinishedEvery: 4 });

beforeAll(async () => {
  double = await MeilisearchDouble.start(ADMIN_KEY);
  config = { kind: 'meilisearch', url: double.url, publicUrl: 'https://search.example.org', adminKey: ADMIN_KEY };
  kura = await startTestApp({}, {}, { search: (db, feed) => createSearch({ search: config, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) });
  follower = await followSearch(kura.db, config);
  const synced = follower.synced(records.map((r) => r.id));
  await kura.load(records);
  await synced;
});
afterAll(async () => {
  await follower?.stop();
  await kura?.close();
  await double?.close();
});

const sent = (method: string, path: string) => double.requests.filter((r) => r.method === method && r.path === path);

describe('KURA_SEARCH=meilisearch (against a Meilisearch double)', () => {
  it('creates the index kura with its searchable, filterable and sortable attributes, with the admin key', () => {
    expect(sent('POST', '/indexes')[0]?.body).toEqual({ uid: 'kura', primaryKey: 'id' });
    const settings = sent('PATCH', '/indexes/kura/settings')[0]?.body;
    expect(settings).toEqual(MEILISEARCH_INDEX_SETTINGS);
    expect(settings).toMatchObject({
      // the id first: a query that is a record's id finds it first
      searchableAttributes: ['id', 'title', 'channelName', 'moments.text'],
      filterableAttributes: expect.arrayContaining(['finished', 'status', 'channelId', 'platform']),
      sortableAttributes: expect.arrayContaining(['scheduledStart', 'length', 'fileSizeBytes']),
    });
    expect(double.requests.every((r) => r.authorization === `Bearer ${ADMIN_KEY}`)).toBe(true);
  });

  it('sends every record as a document in the record shape', () => {
    const documents = sent('POST', '/indexes/kura/documents?primaryKey=id').flatMap((r) => r.body as Array<Record<string, unknown>>);
    expect(new Set(documents.map((d) => d.id))).toEqual(new Set(records.map((r) => r.id)));
    const finished = records.find((r) => r.finished)!;
    expect(documents.find((d) => d.id === finished.id)).toMatchObject({
      id: finished.id,
      title: finished.title,
      channelName: finished.channelName,
      scheduledStart: finished.scheduledStart,
      finished: true,
      status: 'finished',
      fileSizeBytes: finished.fileSizeBytes,
      length: finished.length,
      submitters: finished.submitters,
    });
  });

  it('hands out a key that can only search kura, created once and then reused; never the admin key', async () => {
    const answer = await kura.app.inject({ url: '/api/search' });
    expect(answer.body).not.toContain(ADMIN_KEY);
    const created = sent('POST', '/keys');
    expect(created).toHaveLength(1);
    expect(created[0]?.body).toMatchObject({ actions: ['search'], indexes: ['kura'], expiresAt: null });
    expect(answer.json()).toEqual({ enabled: true, url: 'https://search.example.org', apiKey: double.keys[0]?.key, index: 'kura' });

    // another api process (a fresh adapter) finds the key instead of making another
    const other = createSearch({ search: config, publicUrl: TEST_PUBLIC_URL }, kura.db.pool, null);
    expect((await other.access!()).apiKey).toBe(double.keys[0]?.key);
    expect(sent('POST', '/keys')).toHaveLength(1);
    expect(JSON.stringify(await other.access!())).not.toContain(ADMIN_KEY);
  });

  it('deletes the document of a deleted record', async () => {
    const gone = records[3]!.id;
    const synced = follower.synced([gone]);
    await kura.db.pool.query('delete from livestreams where id = $1', [gone]);
    await synced;
    expect(sent('POST', '/indexes/kura/documents/delete-batch').map((r) => r.body)).toContainEqual([gone]);
  });

  it('keeps changes queued while Meilisearch refuses, asks for an index-records job, and applies them later', async () => {
    await follower.stop(); // only the refused follower runs for now
    const refused = await followSearch(kura.db, { ...(config as Extract<SearchConfig, { kind: 'meilisearch' }>), adminKey: 'wrong' });
    try {
      await kura.db.pool.query(`update livestreams set title = 'Renamed stream' where id = $1`, [records[0]!.id]);
      const jobsBefore = refused.jobsRequested;
      await refused.kick();
      expect(refused.jobsRequested).toBe(jobsBefore + 1);
      await expect(refused.drain()).rejects.toThrow(/403/);
      const { rows } = await kura.db.pool.query('select livestream_id from search_outbox');
      expect(rows.map((r) => r.livestream_id)).toContain(records[0]!.id);
    } finally {
      await refused.stop();
    }
    follower = await followSearch(kura.db, config);
    await follower.drain();
    const { rows } = await kura.db.pool.query('select count(*)::int as n from search_outbox');
    expect(rows[0].n).toBe(0);
    const documents = sent('POST', '/indexes/kura/documents?primaryKey=id').flatMap((r) => r.body as Array<Record<string, unknown>>);
    expect(documents).toContainEqual(expect.objectContaining({ id: records[0]!.id, title: 'Renamed stream' }));
  });

  it('reindex empties the index, then sends every record again', async () => {
    // as many as the database holds now, whatever earlier tests deleted
    const {
      rows: [held],
    } = await kura.db.pool.query('select count(*)::int as n from livestreams');
    expect(held.n).toBeGreaterThan(0);
    const from = double.requests.length;
    expect(await reindex(follower.search, kura.db, TEST_PUBLIC_URL)).toBe(held.n);
    const after = double.requests.slice(from);
    const clear = after.findIndex((r) => r.method === 'DELETE' && r.path === '/indexes/kura/documents');
    const add = after.findIndex((r) => r.method === 'POST' && r.path.startsWith('/indexes/kura/documents?'));
    expect(clear).toBeGreaterThanOrEqual(0);
    expect(add).toBeGreaterThan(clear);
    expect((after[add]?.body as unknown[]).length).toBe(held.n);
  });
});
