import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Store } from '../../src/adapters/storage/s3-store.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { finishedRecord } from '../support/archives.js';
import { headOf, keyframeAtOrBefore, type LongArchive, makeLongArchive, packetSizes, storeAsVideo } from '../support/long-archive.js';
import { startS3, type TestS3 } from '../support/s3.js';

// A clip of an archive in a real S3-compatible bucket (s3rver): only the byte ranges it needs are read.
let s3: TestS3;
let kura: TestApp;
let archive: LongArchive;
/** Bytes the store's reads handed on (what came out of the bucket), since the last reset. */
let bytesRead = 0;
const ID = 'clipS3Long1';

/** The S3 store, its reads counted. */
function counted(store: ArchiveStore): ArchiveStore {
  return {
    ...store,
    async read(key, range) {
      const stream = await store.read(key, range);
      stream.on('data', (chunk: Buffer) => (bytesRead += chunk.length));
      return stream;
    },
  };
}

beforeAll(async () => {
  [s3, archive] = await Promise.all([startS3(), makeLongArchive(60)]);
  const store = createS3Store(s3.config);
  kura = await startTestApp({}, {}, { store: counted(store) });
  const facts = await storeAsVideo(store, ID, archive);
  await kura.db.livestreams.upsertMany([finishedRecord(ID, facts)]);
}, 120_000);
afterAll(async () => {
  await kura.close();
  await s3.stop();
});

describe('GET /api/download/{id}/clip on S3', () => {
  it('reads the archive’s index and the clip’s own bytes from the bucket, not the whole archive', async () => {
    bytesRead = 0;
    const response = await kura.app.inject({ method: 'GET', url: `/api/download/${ID}/clip?start=15:00&end=17:00` });
    expect(response.statusCode, response.body).toBe(200);
    const keyframe = await keyframeAtOrBefore(archive.file, 900);
    expect(Number(response.headers['x-kura-clip-start'])).toBeCloseTo(keyframe, 3);
    // two minutes of an hour: a thirtieth of its media and its index (read once), and at most about a
    // MiB past what each of ffprobe's and ffmpeg's connections read before it sought elsewhere
    const clipMedia = (archive.bytes * (1020 - keyframe)) / archive.seconds;
    const index = (await headOf(archive.file)).moovEnd;
    expect(bytesRead).toBeGreaterThan(index + clipMedia);
    expect(bytesRead).toBeLessThan(index + 1.2 * clipMedia + 3 * 2 ** 20);
    expect(bytesRead).toBeLessThan(archive.bytes / 10);
    expect(response.rawPayload.length).toBeGreaterThan(clipMedia * 0.9);
    const file = `${archive.file}.clip.mp4`;
    await writeFile(file, response.rawPayload);
    expect(await packetSizes(file, 'v:0', 20)).toEqual(await packetSizes(archive.file, 'v:0', 20, keyframe));
  });
});
