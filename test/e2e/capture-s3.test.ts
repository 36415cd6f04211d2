import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { chmod, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { e2eEnv } from '../support/serve-env.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { sampleDiskUse } from '../support/disk-use.js';
import { probe, startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';
import { writeDiscontinuityStream } from '../support/hls-streams.js';
import { waitForRecord } from '../support/records.js';
import { startS3, type TestS3 } from '../support/s3.js';

// Captures stored in a real S3-compatible server (s3rver), compared with the same stream on fs.
let db: TestDatabase;
let cwd: string;
let fixture: HlsFixture;
let s3: TestS3;
let kura: KuraProcess | null = null;

beforeEach(async () => {
  db = await createTestDatabase();
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-capture-s3-'));
  await chmod(cwd, 0o755);
  s3 = await startS3();
  fixture = await startHlsFixture({ seconds: 1 });
  await writeDiscontinuityStream(path.join(fixture.dir, 'live'));
});
afterEach(async () => {
  kura?.child.kill('SIGKILL');
  await kura?.exited;
  kura = null;
  await fixture.close();
  await s3.stop();
  await db.drop();
});

const env = (extra: Record<string, string>) => e2eEnv(db.url, path.join(cwd, 'data'), extra);

/** Runs `kura serve` with `extra`, archives the fixture, and returns the api URL and the record id once finished. */
async function archiveWith(extra: Record<string, string>): Promise<{ api: string; id: string }> {
  kura?.child.kill('SIGTERM');
  await kura?.exited;
  kura = spawnKura(['serve'], env(extra), cwd);
  const api = (await kura.waitForLog((l) => l.msg === 'kura api listening')).url as string;
  const result = await runKura(['archive', fixture.url, '--title', 'Fixture karaoke'], env(extra), cwd);
  expect(result.code, result.stderr).toBe(0);
  const id = /kura: (\S+) is/.exec(result.stdout)?.[1] as string;
  const done = await waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed');
  expect(done.status, done.failure_reason ?? '').toBe('finished');
  return { api, id };
}

/** The first part of the video's multipart upload (the video is the only `.mp4` Kura stores). */
const firstPartOfTheVideo = (method: string, requestPath: string, query: Record<string, string | undefined>) =>
  method === 'PUT' && requestPath.endsWith('.mp4') && query.partNumber !== undefined;

/** The video's bytes as the bucket holds them, through the download redirect. */
async function storedVideo(api: string, id: string): Promise<Buffer> {
  const location = (await fetch(`${api}/api/download/${id}/video`, { redirect: 'manual' })).headers.get('location') as string;
  return Buffer.from(await (await fetch(location)).arrayBuffer());
}

const saved = async (bytes: Buffer) => {
  const file = path.join(cwd, `download-${Date.now()}.mp4`);
  await writeFile(file, bytes);
  return file;
};

describe('capturing to S3 storage', () => {
  it('stores the archive in the bucket, redirects downloads to it, and the bytes equal the fs run', async () => {
    const onFs = await archiveWith({});
    const fsBytes = await readFile(path.join(cwd, 'data', 'archive', 'archives', onFs.id, `${onFs.id}.mp4`));

    const onS3 = await archiveWith(s3.env);
    const download = await fetch(`${onS3.api}/api/download/${onS3.id}/video`, { redirect: 'manual' });
    expect(download.status).toBe(307);
    const location = download.headers.get('location') as string;
    expect(location.startsWith(`${s3.config.endpoint}/kura/archives/${onS3.id}/${onS3.id}.mp4?`)).toBe(true);
    const object = await fetch(location);
    expect(object.headers.get('content-type')).toBe('video/mp4');
    expect(object.headers.get('content-disposition')).toContain(`attachment; filename="Fixture karaoke [${onS3.id}].mp4"`);
    const s3Bytes = Buffer.from(await object.arrayBuffer());
    expect(s3Bytes.length).toBe(fsBytes.length);
    expect(s3Bytes.equals(fsBytes)).toBe(true);

    const [record] = await fetch(`${onS3.api}/api/history`).then((r) => r.json());
    expect(record).toMatchObject({ id: onS3.id, finished: true, fileSizeBytes: s3Bytes.length });
    expect(await fetch(`${onS3.api}/api/video/${onS3.id}/downloads`).then((r) => r.json())).toEqual({ downloads: 1 });
    for (const type of ['log', 'thumbnail'] as const) {
      const redirect = await fetch(`${onS3.api}/api/download/${onS3.id}/${type}`, { redirect: 'manual' });
      expect(redirect.status).toBe(307);
      expect((await fetch(redirect.headers.get('location') as string)).status).toBe(200);
    }
    // an unknown type is 404 whatever the store; past the end, the store behind the redirect answers 416 itself
    for (const method of ['GET', 'HEAD']) expect((await fetch(`${onS3.api}/api/download/${onS3.id}/nonsense`, { method })).status).toBe(404);
    const beyond = await fetch(`${onS3.api}/api/download/${onS3.id}/video`, { headers: { range: `bytes=${s3Bytes.length}-` } });
    expect(beyond.status).toBe(416);
    expect(await s3.openUploads()).toEqual([]);
  });

  it('rides out a 10 s outage of the store in the middle of a multipart upload, leaving no open upload', async () => {
    await fixture.close();
    fixture = await startHlsFixture({ seconds: 20, size: '640x360', bitrate: '5M', constantBitrate: true }); // ~12 MB: a multipart upload
    const encoded = fixture.start();
    // the outage begins with the video's first part: its upload fails, is aborted once the store is back, and is done again
    const outage = s3.outageFrom(firstPartOfTheVideo);
    void outage.began.then(() => setTimeout(() => (refused = outage.end()), 10_000)); // the store is down for 10 s
    let refused = 0;
    const onS3 = await archiveWith(s3.env);
    await encoded;
    const stored = await storedVideo(onS3.api, onS3.id);
    const details = await fetch(`${onS3.api}/api/video/${onS3.id}`).then((r) => r.json());
    expect(stored.length).toBeGreaterThan(8 * 1024 * 1024); // so the upload was multipart, and met the outage
    expect(refused).toBeGreaterThan(1); // requests were refused, and retried
    expect(stored.length).toBe(details.fileSizeBytes);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(details.sha256);
    expect((await probe(await saved(stored))).frames).toBe(600);
    expect(await s3.openUploads()).toEqual([]);
  }, 120_000); // a 20 s stream, then a 10 s outage and the backoff after it

  it('keeps its local disk within a few chunks whatever the stream’s length, capture and finalize alike', async () => {
    await fixture.close();
    fixture = await startHlsFixture({ seconds: 20, size: '640x360', bitrate: '5M', constantBitrate: true }); // ~12.5 MB: a dozen chunks
    const spool = sampleDiskUse(path.join(cwd, 'data', 'spool'));
    const encoded = fixture.start();
    const onS3 = await archiveWith({ ...s3.env, KURA_SPOOL_CHUNK_MB: '1' });
    await encoded;
    const { peak, atPeak, samples } = await spool.stop();
    const details = await fetch(`${onS3.api}/api/video/${onS3.id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    expect(details.fileSizeBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(samples).toBeGreaterThan(100);
    expect(peak).toBeGreaterThan(0);
    // chunks of 1 MiB: two of them, a segment (~0.6 MB) while capturing; the backlog and socket buffers at finalize
    expect(peak, `the spool at its peak: ${atPeak}`).toBeLessThan(6 * 1024 * 1024);
    const stored = await storedVideo(onS3.api, onS3.id);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(details.sha256);
    expect((await probe(await saved(stored))).frames).toBe(600);
    // the chunks went to the bucket as the capture went, and are gone now that the archive is stored
    expect(await s3.keys('captures/')).toEqual([]);
    expect(await s3.openUploads()).toEqual([]);
  }, 120_000);

  it('rides out a 10 s outage of the store while a capture uploads its chunks, losing nothing', async () => {
    await fixture.close();
    fixture = await startHlsFixture({ seconds: 20, size: '640x360', bitrate: '5M', constantBitrate: true });
    const encoded = fixture.start();
    const outage = s3.outageFrom((method, requestPath) => method === 'PUT' && requestPath.includes('/captures/'));
    let refused = 0;
    void outage.began.then(() => setTimeout(() => (refused = outage.end()), 10_000)); // the store is down for 10 s
    const onS3 = await archiveWith({ ...s3.env, KURA_SPOOL_CHUNK_MB: '1' });
    await encoded;
    expect(refused).toBeGreaterThan(1);
    const details = await fetch(`${onS3.api}/api/video/${onS3.id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    const stored = await storedVideo(onS3.api, onS3.id);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(details.sha256);
    expect((await probe(await saved(stored))).frames).toBe(600);
    expect(await s3.keys('captures/')).toEqual([]);
    expect(await s3.openUploads()).toEqual([]);
  }, 120_000);

  it('finishes on another worker an archive whose worker was killed while uploading it', async () => {
    await fixture.close();
    fixture = await startHlsFixture({ seconds: 20, size: '640x360', bitrate: '5M', constantBitrate: true });
    const outage = s3.outageFrom(firstPartOfTheVideo); // holds the upload until the worker is killed
    kura = spawnKura(['serve'], env({ ...s3.env, KURA_CAPTURE_STALE_SECONDS: '4' }), cwd);
    await kura.waitForLog((l) => l.msg === 'kura api listening');
    const result = await runKura(['archive', fixture.url], env(s3.env), cwd);
    const id = /kura: (\S+) is/.exec(result.stdout)?.[1] as string;
    await fixture.start();
    await outage.began;
    kura.child.kill('SIGKILL');
    await kura.exited;
    outage.end();
    kura = spawnKura(['serve'], env({ ...s3.env, KURA_CAPTURE_STALE_SECONDS: '4' }), cwd); // a redeploy
    const api = (await kura.waitForLog((l) => l.msg === 'kura api listening')).url as string;
    const done = await waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const stored = await storedVideo(api, id);
    expect(createHash('sha256').update(stored).digest('hex')).toBe((await fetch(`${api}/api/video/${id}`).then((r) => r.json())).sha256);
    expect((await probe(await saved(stored))).frames).toBe(600);
    // the killed worker's upload was noted in PostgreSQL, and aborted before the video was stored again
    expect(await s3.openUploads()).toEqual([]);
    expect((await db.pool.query('select count(*)::int as n from storage_uploads')).rows[0].n).toBe(0);
  }, 120_000);
});
