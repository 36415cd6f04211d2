import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LivestreamInput } from '../../src/core/records/livestream.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { finishedRecord } from '../support/archives.js';
import { buildRecord } from '../support/factories.js';

let kura: TestApp;
const ID = 'stored1';
const VIDEO = Buffer.from('0123456789'.repeat(100));

beforeAll(async () => {
  kura = await startTestApp();
  const key = objectKeys.video(ID);
  await mkdir(path.dirname(path.join(kura.archiveDir, key)), { recursive: true });
  await writeFile(path.join(kura.archiveDir, key), VIDEO);
  const record = finishedRecord(ID, {
    fileSizeBytes: VIDEO.length,
    lengthSeconds: 1,
    videoKey: key,
    logKey: null,
    thumbnailKey: null,
    sha256: 'a'.repeat(64),
    externalUrl: null,
  });
  await kura.db.livestreams.upsertMany([record]);
});
afterAll(() => kura.close());

const download = (method: 'GET' | 'HEAD', url: string, headers: Record<string, string> = {}) => kura.app.inject({ method, url, headers });

describe('GET|HEAD /api/download/{id}/{type} (fs storage)', () => {
  it.each(['GET', 'HEAD'] as const)('%s of an unknown download type answers 404 download_type_not_found, for a known or unknown record', async (method) => {
    for (const url of [`/api/download/${ID}/nonsense`, '/api/download/nothing-here/nonsense', `/api/download/${ID}/__proto__`]) {
      const response = await download(method, url);
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      if (method === 'GET') expect(response.json()).toMatchObject({ status: 404, code: 'download_type_not_found' });
    }
  });

  it.each(['GET', 'HEAD'] as const)('%s with an unsatisfiable Range answers 416 with Content-Range: bytes */size', async (method) => {
    for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=50-10']) {
      const response = await download(method, `/api/download/${ID}/video`, { range });
      expect(response.statusCode, range).toBe(416);
      expect(response.headers['content-range']).toBe(`bytes */${VIDEO.length}`);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.headers['content-disposition']).toBeUndefined();
      if (method === 'GET') expect(response.json()).toMatchObject({ status: 416, code: 'range_not_satisfiable' });
    }
  });

  it('still serves a satisfiable Range (206) and the whole file, by its known types', async () => {
    const ranged = await download('GET', `/api/download/${ID}/video`, { range: 'bytes=990-' });
    expect(ranged.statusCode).toBe(206);
    expect(ranged.headers['content-range']).toBe(`bytes 990-999/${VIDEO.length}`);
    expect(ranged.rawPayload.equals(VIDEO.subarray(990))).toBe(true);
    const head = await download('HEAD', `/api/download/${ID}/video`);
    expect([head.statusCode, head.headers['content-length']]).toEqual([200, String(VIDEO.length)]);
    // a known type without its file is still 409, not 404
    expect((await download('GET', `/api/download/${ID}/ffmpeg`)).json()).toMatchObject({ status: 409, code: 'archive_not_ready' });
  });

  it.each(['GET', 'HEAD'] as const)('%s of an unknown record answers 404 livestream_not_found', async (method) => {
    const response = await download(method, '/api/download/nothing-here/video');
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    if (method === 'GET') expect(response.json()).toMatchObject({ status: 404, code: 'livestream_not_found' });
  });

  it('serves the encoder log under its original name `ffmpeg` as under `log`', async () => {
    const id = 'withlog1';
    const log = Buffer.from('frame=  30 fps=30 size=1kB time=00:00:01.00\n');
    await writeFile(await keyPath(objectKeys.log(id)), log);
    await kura.db.livestreams.upsertMany([storedRecord(id, { logKey: objectKeys.log(id) })]);
    const byLog = await download('GET', `/api/download/${id}/log`);
    const byFfmpeg = await download('GET', `/api/download/${id}/ffmpeg`);
    expect(byLog.statusCode, byLog.body).toBe(200);
    expect(byFfmpeg.statusCode, byFfmpeg.body).toBe(200);
    expect(byFfmpeg.rawPayload.equals(log)).toBe(true);
    expect(byFfmpeg.headers['content-type']).toBe(byLog.headers['content-type']);
  });

  it('redirects (307) the video of a finished imported record to the URL it was imported with', async () => {
    const record = buildRecord({ id: 'imported1', downloadUrl: 'https://archive.example.org/imported1.mp4' });
    await kura.load([record]);
    const response = await download('GET', '/api/download/imported1/video');
    expect(response.statusCode, response.body).toBe(307);
    expect(response.headers.location).toBe('https://archive.example.org/imported1.mp4');
  });
});

/** The fs path of an object key in the app's store, its folder made. */
async function keyPath(key: string): Promise<string> {
  const file = path.join(kura.archiveDir, key);
  await mkdir(path.dirname(file), { recursive: true });
  return file;
}

/** A finished record stored by Kura, with the archive keys given. */
function storedRecord(id: string, keys: { videoKey?: string | null; logKey?: string | null }): LivestreamInput {
  const archive = { fileSizeBytes: 10, lengthSeconds: 1, thumbnailKey: null, sha256: 'a'.repeat(64), externalUrl: null };
  return finishedRecord(id, { ...archive, videoKey: keys.videoKey ?? null, logKey: keys.logKey ?? null });
}
