import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMomentRepo } from '../../src/adapters/db/moment-repo.js';
import { createSearchOutbox } from '../../src/adapters/db/search-outbox.js';
import { createMeilisearchIndex } from '../../src/adapters/search/meilisearch-index.js';
import type { RejectedDocument } from '../../src/core/search/search.js';
import { syncSearchIndex, type SearchSyncDeps } from '../../src/core/search/sync-search-index.js';
import { publicRecord } from '../../src/core/record-actions/public-record.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { buildRecords } from '../support/factories.js';
import { MeilisearchDouble } from '../support/meilisearch-double.js';

// Meilisearch runs every change as a task whose outcome comes later (a MEILISEARCH DOUBLE as hard
// as Meilisearch: test/support/meilisearch-double.ts). Kura waits for each task, retries what
// failed for Meilisearch's reasons, and never drops a document Meilisearch refused: it marks the
// record to be indexed again, says why, and indexes the rest of the batch.
const ADMIN_KEY = 'admin-key';
let double: MeilisearchDouble;
let kura: TestApp;
let refused: RejectedDocument[][];
let deps: SearchSyncDeps;
const records = buildRecords(40);

beforeAll(async () => {
  double = await MeilisearchDouble.start(ADMIN_KEY);
  kura = await startTestApp();
  await kura.load(records);
  deps = {
    outbox: createSearchOutbox(kura.db.pool),
    livestreams: kura.db.livestreams,
    moments: createMomentRepo(kura.db.pool),
    index: createMeilisearchIndex({ url: double.url, adminKey: ADMIN_KEY }, { retryMs: 20 }),
    document: (livestream) => publicRecord(livestream, TEST_PUBLIC_URL, 'public'),
    onRejected: (rejected) => refused.push([...rejected]),
  };
});
afterAll(async () => {
  await kura?.close();
  await double?.close();
});
beforeEach(async () => {
  refused = [];
  double.refuse(() => false);
  double.failNext(0);
  double.taskMs = 0;
  // each test starts from an index that holds every record and nothing refused
  await kura.db.pool.query('delete from search_rejections');
  await syncSearchIndex(deps);
});

const outbox = async () =>
  (await kura.db.pool.query<{ id: string }>('select distinct livestream_id as id from search_outbox order by 1')).rows.map((r) => r.id);
const rejections = async () =>
  (
    await kura.db.pool.query<{ id: string; reason: string; waits: boolean }>(
      `select livestream_id as id, reason, retry_at > now() + interval '50 minutes' as waits from search_rejections order by 1`,
    )
  ).rows;
/** Queues a change of each of `ids`, as a rename does. */
const changed = (ids: readonly string[]) => kura.db.pool.query(`update livestreams set title = title || '.' where id = any($1::text[])`, [ids]);
/** Has Meilisearch refuse the record `id` at its next change, drained; then takes documents again. */
async function refusedOnce(id: string): Promise<void> {
  double.refuse((document) => document.id === id);
  double.documents.delete(id);
  await changed([id]);
  await syncSearchIndex(deps);
  double.refuse(() => false);
}

describe('the Meilisearch adapter, on a Meilisearch whose tasks end later', () => {
  it('waits for slow tasks: the drain ends once Meilisearch holds the documents', async () => {
    double.taskMs = 300;
    double.documents.clear();
    await changed(records.map((r) => r.id));
    const started = Date.now();
    const applied = await syncSearchIndex(deps);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(new Set(applied)).toEqual(new Set(records.map((r) => r.id)));
    expect(double.documents.size).toBe(records.length);
    expect(await outbox()).toEqual([]);
  });

  it('indexes a batch holding a document Meilisearch refuses but that one, marks it, and says why', async () => {
    const bad = records[17]!.id;
    double.refuse((document) => document.id === bad);
    double.documents.clear();
    await changed(records.map((r) => r.id));

    const applied = await syncSearchIndex(deps);

    expect(applied).not.toContain(bad);
    expect(applied).toHaveLength(records.length - 1);
    expect([...double.documents.keys()].sort()).toEqual(
      records
        .map((r) => r.id)
        .filter((id) => id !== bad)
        .sort(),
    );
    expect(refused).toEqual([[{ id: bad, reason: expect.stringMatching(/^invalid_document_id: Document identifier/) }]]);
    expect(await rejections()).toEqual([{ id: bad, reason: refused[0]![0]!.reason, waits: true }]);
    expect(await outbox()).toEqual([]);
    // halving found it: about log2(40) tasks of halves, not one a document
    const additions = double.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/indexes/kura/documents?'));
    expect(additions.slice(-15).filter((r) => (r.body as unknown[]).length === 1).length).toBeLessThanOrEqual(2);
  });

  it('indexes a refused document again once its wait is over, and forgets it was refused', async () => {
    const bad = records[23]!.id;
    await refusedOnce(bad);
    await kura.db.pool.query(`update search_rejections set retry_at = now() - interval '1 second' where livestream_id = $1`, [bad]);
    expect(await rejections()).toHaveLength(1);

    expect(await syncSearchIndex(deps)).toEqual([bad]);
    expect(double.documents.has(bad)).toBe(true);
    expect(await rejections()).toEqual([]);
  });

  it('indexes a refused document at its record’s next change, once Meilisearch takes it', async () => {
    const bad = records[5]!.id;
    await refusedOnce(bad);
    expect((await rejections()).map((r) => r.id)).toEqual([bad]);

    await changed([bad]);
    expect(await syncSearchIndex(deps)).toEqual([bad]);
    expect(await rejections()).toEqual([]);
  });

  it('retries a task that failed for Meilisearch’s own reasons, and indexes on its third attempt', async () => {
    const ids = records.slice(0, 3).map((r) => r.id);
    for (const id of ids) double.documents.delete(id);
    await changed(ids);
    double.failNext(2);

    expect((await syncSearchIndex(deps)).sort()).toEqual([...ids].sort());
    expect(ids.every((id) => double.documents.has(id))).toBe(true);
    expect(refused).toEqual([]);
  });

  it('keeps the changes queued when Meilisearch fails every attempt, and marks nothing refused', async () => {
    const ids = records.slice(3, 6).map((r) => r.id);
    await changed(ids);
    double.failNext(3);

    await expect(syncSearchIndex(deps)).rejects.toThrow(/failed to index documents 3 times: no_space_left_on_device/);
    expect(await outbox()).toEqual([...ids].sort());
    expect(await rejections()).toEqual([]);

    // the disk has room again: the next drain (the index-records job's) applies them
    expect((await syncSearchIndex(deps)).sort()).toEqual([...ids].sort());
    expect(await outbox()).toEqual([]);
  });

  it('a reindex queues every record, refused ones too', async () => {
    const bad = records[9]!.id;
    await refusedOnce(bad);
    expect((await rejections()).map((r) => r.id)).toEqual([bad]);

    await deps.outbox.queueAll(async () => undefined);
    expect(await rejections()).toEqual([]);
    expect(await syncSearchIndex(deps)).toHaveLength(records.length);
    expect(double.documents.has(bad)).toBe(true);
  });
});
