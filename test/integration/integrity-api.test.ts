import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArchiveCheckRepo } from '../../src/adapters/db/archive-check-repo.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import { verifyOneArchive } from '../../src/core/archive/verify-archives.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { externalArchive, finishedRecord, flipOneByte, putObject, storeArchive } from '../support/archives.js';

let kura: TestApp;
beforeAll(async () => {
  kura = await startTestApp();
});
afterAll(() => kura.close());

const store = () => createFsStore(kura.archiveDir);
/** `kura verify ID`, as the CLI runs it, on the app's store and database. */
const verify = (id: string) =>
  verifyOneArchive({ store: store(), checks: createArchiveCheckRepo(kura.db.pool), livestreams: kura.db.livestreams }, id, () => undefined);
const get = (url: string, headers: Record<string, string> = {}) => kura.app.inject({ url, headers });
const pendingSearchChanges = async (id: string) =>
  (await kura.db.pool.query<{ n: number }>('select count(*)::int as n from search_outbox where livestream_id = $1', [id])).rows[0]!.n;

describe('integrity in the API', () => {
  it('shows a stored archive unverified until checked, then ok with when, in the record and in history', async () => {
    await storeArchive(store(), kura.db.livestreams, 'api-fine');
    expect((await get('/api/video/api-fine')).json()).toMatchObject({ integrity: null, verifiedAt: null });
    const cachedPage = (await get('/api/history?limit=100')).json() as Array<{ id: string; integrity?: string | null }>;
    expect(cachedPage.find((r) => r.id === 'api-fine')?.integrity).toBeNull();

    const changed = kura.nextChange();
    await verify('api-fine');
    await changed;
    const details = (await get('/api/video/api-fine')).json();
    expect(details).toMatchObject({ integrity: 'ok', verifiedAt: expect.stringMatching(/Z$/) });
    // the read cache was emptied by the change of the flag
    const page = (await get('/api/history?limit=100')).json() as Array<{ id: string; integrity?: string | null }>;
    expect(page.find((r) => r.id === 'api-fine')?.integrity).toBe('ok');
  });

  it('leaves the field out of records whose archive is kept outside', async () => {
    const archive = externalArchive();
    await kura.db.livestreams.upsertMany([finishedRecord('api-external', archive)]);
    const details = (await get('/api/video/api-external')).json();
    expect(details).not.toHaveProperty('integrity');
    expect(details).not.toHaveProperty('verifiedAt');
  });

  it('re-indexes a record for search when its flag changes, not at a routine check', async () => {
    const bytes = await storeArchive(store(), kura.db.livestreams, 'api-reindex');
    await verify('api-reindex');
    await kura.db.pool.query(`delete from search_outbox where livestream_id = 'api-reindex'`);
    await verify('api-reindex'); // ok again: only the time of the check moves
    expect(await pendingSearchChanges('api-reindex')).toBe(0);
    await putObject(store(), objectKeys.video('api-reindex'), flipOneByte(bytes));
    await verify('api-reindex');
    expect(await pendingSearchChanges('api-reindex')).toBe(1);
  });
});

describe('downloads of flagged archives', () => {
  it('refuses the video of a missing archive with 410 archive_missing (GET and HEAD), and serves its other files', async () => {
    await storeArchive(store(), kura.db.livestreams, 'dl-missing');
    await store().delete(objectKeys.video('dl-missing'));
    await verify('dl-missing');
    for (const method of ['GET', 'HEAD'] as const) {
      const response = await kura.app.inject({ method, url: '/api/download/dl-missing/video' });
      expect(response.statusCode).toBe(410);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      if (method === 'GET')
        expect(response.json()).toMatchObject({ status: 410, code: 'archive_missing', detail: expect.stringContaining('kura verify dl-missing') });
    }
  });

  it('serves the video of a corrupt archive, saying so in X-Kura-Integrity (exposed to other origins)', async () => {
    const bytes = await storeArchive(store(), kura.db.livestreams, 'dl-corrupt');
    const damaged = flipOneByte(bytes);
    await putObject(store(), objectKeys.video('dl-corrupt'), damaged);
    await verify('dl-corrupt');
    const response = await kura.app.inject({ url: '/api/download/dl-corrupt/video', headers: { origin: 'https://other.example' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-kura-integrity']).toBe('corrupt');
    expect(String(response.headers['access-control-expose-headers'])).toMatch(/x-kura-integrity/i);
    expect(response.rawPayload.equals(damaged)).toBe(true);
    const fine = await storeArchive(store(), kura.db.livestreams, 'dl-fine');
    await verify('dl-fine');
    const served = await kura.app.inject({ url: '/api/download/dl-fine/video' });
    expect(served.headers['x-kura-integrity']).toBeUndefined();
    expect(served.rawPayload.equals(fine)).toBe(true);
  });

  it('serves a missing archive again once it is restored and verified', async () => {
    const bytes = await storeArchive(store(), kura.db.livestreams, 'dl-restored');
    await store().delete(objectKeys.video('dl-restored'));
    await verify('dl-restored');
    expect((await get('/api/download/dl-restored/video')).statusCode).toBe(410);
    await putObject(store(), objectKeys.video('dl-restored'), bytes);
    await verify('dl-restored');
    const response = await get('/api/download/dl-restored/video');
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.equals(bytes)).toBe(true);
  });
});

describe('/metrics', () => {
  it('counts the stored archives by integrity', async () => {
    await storeArchive(store(), kura.db.livestreams, 'metrics-missing');
    await store().delete(objectKeys.video('metrics-missing'));
    await verify('metrics-missing');
    const counts = await createArchiveCheckRepo(kura.db.pool).counts();
    const body = (await get('/metrics')).body;
    expect(body).toContain('# TYPE kura_archives gauge');
    for (const [integrity, count] of Object.entries(counts)) expect(body).toContain(`kura_archives{integrity="${integrity}"} ${count}`);
    expect(counts.missing).toBeGreaterThan(0);
  });
});
