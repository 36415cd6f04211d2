import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createS3Store } from '../../src/adapters/storage/s3-store.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { LivestreamInput } from '../../src/core/livestream/livestream.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { finishedRecord, putObject } from '../support/archives.js';
import { startS3, type TestS3 } from '../support/s3.js';

// An admin's takedown with the archives in a real S3-compatible bucket (s3rver) instead of on disk.
let s3: TestS3;
let store: ArchiveStore;
let kura: TestApp;
let admin: string;
beforeAll(async () => {
  s3 = await startS3();
  store = createS3Store(s3.config);
  kura = await startTestApp({}, {}, { store });
  await addUser(kura, 'root', { admin: true });
  admin = await logIn(kura, 'root');
});
afterAll(async () => {
  await kura.close();
  await s3.stop();
});

/** A finished record whose video, log and thumbnail are objects in the bucket. */
async function archivedInBucket(id: string): Promise<void> {
  const keys = { videoKey: objectKeys.video(id), logKey: objectKeys.log(id), thumbnailKey: objectKeys.thumbnail(id) };
  for (const key of Object.values(keys)) await putObject(store, key, Buffer.from(`bytes of ${key}`));
  await kura.db.livestreams.upsertMany([finishedRecord(id, { ...keys, fileSizeBytes: 100, lengthSeconds: 1, sha256: 'a'.repeat(64), externalUrl: null })]);
}

const takeDown = (id: string) =>
  kura.app.inject({ method: 'DELETE', url: `/api/video/${id}`, headers: { ...SAME_ORIGIN, cookie: admin }, payload: { reason: 'copyright claim' } });

describe('takedown on S3 storage', () => {
  it('deletes the archive’s objects from the bucket and the record, and leaves other records’ objects alone', async () => {
    await archivedInBucket('s3-gone');
    await archivedInBucket('s3-neighbour');
    expect((await s3.keys('archives/s3-gone/')).sort()).toEqual([
      'archives/s3-gone/s3-gone.jpg',
      'archives/s3-gone/s3-gone.log',
      'archives/s3-gone/s3-gone.mp4',
    ]);

    const response = await takeDown('s3-gone');
    expect(response.statusCode, response.body).toBe(204);

    expect(await s3.keys('archives/s3-gone/')).toEqual([]);
    expect(await kura.db.livestreams.findById('s3-gone')).toBeNull();
    expect((await kura.app.inject({ url: '/api/video/s3-gone' })).json()).toMatchObject({ status: 404, code: 'livestream_not_found' });
    expect((await kura.app.inject({ url: '/api/download/s3-gone/video' })).statusCode).toBe(404);
    expect(await s3.keys('archives/s3-neighbour/')).toHaveLength(3);
    expect((await kura.app.inject({ url: '/api/download/s3-neighbour/video' })).statusCode).toBe(307);
  });

  it('deletes the chunks a failed capture left in the bucket', async () => {
    const id = 's3-failed';
    const failed: LivestreamInput = { ...finishedRecord(id), status: 'failed', failureReason: 'the worker gave up' };
    await kura.db.livestreams.upsertMany([failed]);
    const captures = createCaptureRepo(kura.db.pool);
    await captures.claim(id, 'worker-1', 60);
    for (const [startOffset, endOffset] of [
      [0, 1000],
      [1000, 2000],
    ] as const) {
      const key = objectKeys.captureChunk(id, 1, startOffset, `nonce${startOffset}`);
      await putObject(store, key, Buffer.alloc(endOffset - startOffset, 7));
      expect(await captures.recordChunk(id, 'worker-1', { part: 1, startOffset, endOffset, key })).toBe(true);
    }
    expect(await s3.keys(`captures/${id}/`)).toHaveLength(2);

    expect((await takeDown(id)).statusCode).toBe(204);

    expect(await s3.keys(`captures/${id}/`)).toEqual([]);
    expect(await kura.db.livestreams.findById(id)).toBeNull();
  });
});
