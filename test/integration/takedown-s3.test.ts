import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpool } from '../../src/adapters/capture/spool.js';
import { createAdminActionRepo } from '../../src/adapters/db/admin-action-repo.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { finalizeArchiveJob } from '../../src/jobs/definitions/finalize-archive.js';
import type { JobWork } from '../../src/jobs/job-work.js';
import { createS3Store } from '../../src/adapters/storage/s3-store.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { LivestreamInput } from '../../src/core/records/livestream.js';
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

  it('of a record being recorded: 202, its objects stay until the capture ends, then its finalize removes them all, its spool and the record', async () => {
    const id = 's3-live';
    await kura.db.livestreams.upsertMany([{ ...finishedRecord(id), status: 'live', archive: null }]);
    const captures = createCaptureRepo(kura.db.pool);
    await captures.claim(id, 'worker-1', 60);
    const key = objectKeys.captureChunk(id, 1, 0, 'nonce0');
    await putObject(store, key, Buffer.alloc(1000, 7));
    expect(await captures.recordChunk(id, 'worker-1', { part: 1, startOffset: 0, endOffset: 1000, key })).toBe(true);
    const spoolDir = await mkdtemp(path.join(os.tmpdir(), 'kura-spool-'));
    const spool = createSpool(spoolDir);
    await spool.writeFile(id, 'part-0001-at-00000000001000', 'a local chunk');

    expect((await takeDown(id)).statusCode).toBe(202);
    expect(await s3.keys(`captures/${id}/`)).toHaveLength(1); // the capture may still be uploading: nothing is deleted under it

    // the worker sees the stop, ends the capture, and its finalize job completes the takedown
    await captures.end(id, 'cancelled');
    const deps = { livestreams: kura.db.livestreams, captures, store, spool, adminActions: createAdminActionRepo(kura.db.pool) };
    const work = { deps, settings: { workerId: 'worker-1', staleAfterSeconds: 60 } } as unknown as JobWork;
    await finalizeArchiveJob.handle(work, { livestreamId: id }, { id: 'job-1' });

    expect(await s3.keys(`captures/${id}/`)).toEqual([]);
    expect(await s3.keys(`archives/${id}/`)).toEqual([]);
    expect(await readdir(spoolDir)).toEqual([]);
    expect(await kura.db.livestreams.findById(id)).toBeNull();
    const { rows } = await kura.db.pool.query(`select action, admin, reason from admin_actions where livestream_id = $1`, [id]);
    expect(rows).toEqual([{ action: 'takedown', admin: 'local/root', reason: 'copyright claim' }]);
  });
});
