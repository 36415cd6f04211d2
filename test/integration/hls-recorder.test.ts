import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHlsRecorder } from '../../src/adapters/capture/hls-recorder.js';
import { createSpool } from '../../src/adapters/capture/spool.js';
import { freeBytes } from '../../src/adapters/os/disk-space.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFetcher } from '../../src/adapters/sources/http-fetch.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import type { CaptureRepo } from '../../src/core/capture/ports.js';
import { recorderLimits } from '../support/recorder-limits.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The recorder in this process on a real PostgreSQL, the fs store and a real HTTP source that
// misbehaves on purpose: what the part holds must be the source's bytes, each segment once.
let db: TestDatabase;
let dir: string;
let captures: CaptureRepo;
let server: http.Server;
let base: string;
/** What the source serves: segments of random bytes, larger than what the recorder holds in memory before writing (1 MiB). */
let segments: Buffer[];
/** The playlist's window starts here (the source dropped the segments before it). */
let firstListed: number;
/** Answers a segment request itself when it returns true (a fault); null serves every request. */
let fault: ((name: string, response: http.ServerResponse, body: Buffer) => boolean) | null;

beforeEach(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-recorder-'));
  captures = createCaptureRepo(db.pool);
  // the last is shorter than what a cut-off attempt at the one before it leaves written
  segments = [...Array.from({ length: 3 }, () => randomBytes(3 * 1024 * 1024 + 123)), randomBytes(500_000)];
  fault = null;
  firstListed = 0;
  server = http.createServer((request, response) => {
    const name = (request.url ?? '').slice(1);
    if (name === 'index.m3u8') {
      const lines = ['#EXTM3U', '#EXT-X-TARGETDURATION:1', `#EXT-X-MEDIA-SEQUENCE:${firstListed}`];
      for (let i = firstListed; i < segments.length; i++) lines.push('#EXTINF:1.0,', `seg${i}.ts`);
      return void response.end(`${[...lines, '#EXT-X-ENDLIST'].join('\n')}\n`);
    }
    const body = segments[Number(/^seg(\d+)\.ts$/.exec(name)?.[1] ?? -1)];
    if (body === undefined) return void response.writeHead(404).end();
    if (fault?.(name, response, body)) return;
    response.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await db.drop();
});

/** Records the source's playlist to its end; resolves with the end reason and the stored bytes of part 1, in order. */
async function record(): Promise<{ reason: string; stored: Buffer }> {
  const id = 'rec-faults';
  await db.pool.query(`insert into livestreams (id, platform, source_url, status, scheduled_start_at) values ($1, 'hls', $2, 'live', now())`, [
    id,
    `${base}/index.m3u8`,
  ]);
  const capture = await captures.claim(id, 'worker-1', 30);
  const recorder = createHlsRecorder({
    captures,
    fetcher: createFetcher({ allowPrivate: true }),
    spool: createSpool(path.join(dir, 'spool')),
    store: createFsStore(path.join(dir, 'archive')),
    freeBytes,
    limits: recorderLimits({ chunkBytes: 5 * 1024 * 1024 }),
  });
  const reason = await recorder.record(
    { capture: capture!, playlist: { url: `${base}/index.m3u8`, headers: null, audio: [] }, workerId: 'worker-1' },
    new AbortController().signal,
  );
  const chunks = await captures.chunks(id);
  expect(chunks.every((c) => c.part === 1)).toBe(true);
  const stored = Buffer.concat(await Promise.all(chunks.map((c) => readFile(path.join(dir, 'archive', c.key)))));
  return { reason, stored };
}

describe('the HLS recorder', () => {
  it('records a segment whose body broke off halfway once, from its start, when the next attempt succeeds', async () => {
    let cut = false;
    fault = (name, response, body) => {
      if (name !== 'seg1.ts' || cut) return false;
      cut = true; // two thirds of the body, then the connection drops: more than the recorder holds, so part of it was written
      response.writeHead(200, { 'content-length': body.length });
      response.write(body.subarray(0, Math.floor((body.length * 2) / 3)), () => response.socket?.destroy());
      return true;
    };
    const { reason, stored } = await record();
    expect(cut).toBe(true);
    expect(reason).toBe('endlist');
    expect(stored.equals(Buffer.concat(segments))).toBe(true);
    const { rows } = await db.pool.query('select sequence, end_offset from capture_segments order by sequence');
    expect(rows.map((r) => Number(r.end_offset))).toEqual(segments.map((_, i) => segments.slice(0, i + 1).reduce((sum, s) => sum + s.length, 0)));
    expect(await captures.readLog('rec-faults')).toMatch(/segment 1 attempt 1 failed/);
  });

  it('leaves nothing of a segment it had to give up in the part, and records the segments around it', async () => {
    fault = (name, response, body) => {
      if (name !== 'seg2.ts') return false;
      firstListed = 3; // the window moves on: the recorder gives the segment up after this attempt
      response.writeHead(200, { 'content-length': body.length });
      response.write(body.subarray(0, 2 * 1024 * 1024), () => response.socket?.destroy());
      return true;
    };
    const { reason, stored } = await record();
    expect(reason).toBe('endlist');
    expect(stored.equals(Buffer.concat([segments[0]!, segments[1]!, segments[3]!]))).toBe(true);
    expect(await captures.gaps('rec-faults')).toMatchObject([{ firstSequence: 2, lastSequence: 2 }]);
  });
});
