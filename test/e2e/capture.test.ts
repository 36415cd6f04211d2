import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { chmod, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { e2eEnv } from '../support/serve-env.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { probe, remuxReference, SEGMENT_REQUEST, startHlsFixture, writeDiscontinuityStream, writeEncryptedStream, writeSingleFileStream, type FixtureOptions, type HlsFixture } from '../support/hls-fixture.js';
import { waitForRecord } from '../support/records.js';

// Real captures: ffmpeg encodes a live HLS stream in real time on 127.0.0.1, `kura serve`
// (the built command, its own process) records it, and the results are measured with ffprobe.
let db: TestDatabase;
let dataDir: string;
let fixture: HlsFixture;
let kura: KuraProcess | null = null;

beforeEach(async () => {
  db = await createTestDatabase();
  const cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-capture-'));
  await chmod(cwd, 0o755);
  dataDir = path.join(cwd, 'data');
});
afterEach(async () => {
  kura?.child.kill('SIGKILL');
  await kura?.exited;
  kura = null;
  await fixture?.close();
  await db.drop();
});

const env = (extra: Record<string, string> = {}) => e2eEnv(db.url, dataDir, { LOG_LEVEL: 'warn', ...extra });

async function serve(extra: Record<string, string> = {}): Promise<string> {
  kura = spawnKura(['serve'], { ...env(extra), LOG_LEVEL: 'info' }, path.dirname(dataDir));
  const line = await kura.waitForLog((l) => l.msg === 'kura api listening');
  return line.url as string;
}

const archivedFile = (id: string) => path.join(dataDir, 'archive', 'archives', id, `${id}.mp4`);
const settled = (id: string) => waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed');

/**
 * Starts recording a 30 s live stream, sends `signal` to the recording `kura serve` once 8
 * segments were fetched, starts `kura serve` again on the same data and database, and waits for
 * the stream to end. Returns the record, the new api URL and how the first process exited.
 */
async function interruptMidCapture(signal: NodeJS.Signals, options: Partial<FixtureOptions> = {}, beforeRestart?: (id: string) => Promise<void>) {
  fixture = await startHlsFixture({ seconds: 30, ...options });
  await serve();
  const id = await archive(fixture.url);
  const encoded = fixture.start();
  await fixture.seen(SEGMENT_REQUEST, 8);
  kura!.child.kill(signal);
  const exit = await kura!.exited;
  await beforeRestart?.(id);
  const api = await serve(); // the same data dir and database: a redeploy
  await encoded;
  return { id, api, exit };
}

/** Archives a finished stream that `write` puts in a fixture, and waits until its record settles. */
async function archiveWritten(write: (liveDir: string) => Promise<void>, extra: Record<string, string> = {}) {
  fixture = await startHlsFixture({ seconds: 1 });
  await write(path.join(fixture.dir, 'live'));
  const api = await serve(extra);
  const id = await archive(fixture.url);
  const done = await settled(id);
  const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
  return { api, id, done, details };
}

async function archive(url: string): Promise<string> {
  const result = await runKura(['archive', url, '--title', 'Fixture karaoke', '--channel', 'Fixture channel'], env(), path.dirname(dataDir));
  expect(result.code, result.stderr).toBe(0);
  return /kura: (\S+) is/.exec(result.stdout)?.[1] as string;
}

describe('capturing a live HLS stream', () => {
  it('archives a 20 s stream queued before it starts, whole, and serves it', async () => {
    fixture = await startHlsFixture({ seconds: 20 });
    const api = await serve();
    const id = await archive(fixture.url);
    expect((await fetch(`${api}/api/queue`).then((r) => r.json()))[0]).toMatchObject({ id, status: 'upcoming', submitters: [expect.stringMatching(/^cli\//)] });

    const encoded = fixture.start();
    await waitForRecord(db.url, id, (r) => r.status === 'live');
    await fixture.seen(SEGMENT_REQUEST, 5);
    const earlyLog = await fetch(`${api}/api/logz?url=${encodeURIComponent(fixture.url)}`).then((r) => r.text());
    expect(earlyLog).toContain('[kura] recording');
    await fixture.seen(SEGMENT_REQUEST, 12);
    const laterLog = await fetch(`${api}/api/logz`).then((r) => r.text());
    expect(laterLog.length).toBeGreaterThan(earlyLog.length);
    expect(laterLog).toContain('segment 10 stored');
    await encoded;

    const done = await settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    expect((await fetch(`${api}/api/logz?id=${id}`)).status).toBe(404);

    const archived = archivedFile(id);
    const reference = path.join(fixture.dir, 'reference.mp4');
    await remuxReference(path.join(fixture.dir, 'live', 'index.m3u8'), reference);
    const [ours, theirs] = await Promise.all([probe(archived), probe(reference)]);
    expect(Math.abs(ours.duration - theirs.duration)).toBeLessThanOrEqual(0.1);
    expect(ours.frames).toBe(theirs.frames);
    expect(ours.frames).toBe(600);

    const [record] = await fetch(`${api}/api/history`).then((r) => r.json());
    expect(record).toMatchObject({ id, finished: true, title: 'Fixture karaoke', fileSizeBytes: (await stat(archived)).size, length: Math.round(ours.duration) });
    expect(record.downloadUrl).toMatch(new RegExp(`/api/download/${id}/video$`));

    // downloads: Range, HEAD not counted, crawlers not counted, one GET counted
    const bytes = await readFile(archived);
    const head = await fetch(`${api}/api/download/${id}/video`, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    const ranged = await fetch(`${api}/api/download/${id}/video`, { headers: { range: 'bytes=100-199' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
    await fetch(`${api}/api/download/${id}/video`, { headers: { 'user-agent': 'Googlebot/2.1' } }).then((r) => r.arrayBuffer());
    const full = await fetch(`${api}/api/download/${id}/video`);
    expect(full.headers.get('content-disposition')).toContain('attachment; filename="Fixture karaoke');
    expect(Buffer.from(await full.arrayBuffer()).equals(bytes)).toBe(true);
    expect(await fetch(`${api}/api/video/${id}/downloads`).then((r) => r.json())).toEqual({ downloads: 1 });
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toContain('capture ended (endlist)');
    const thumbnail = await fetch(`${api}/api/download/${id}/thumbnail`);
    expect(thumbnail.headers.get('content-type')).toBe('image/jpeg');
    expect(thumbnail.status).toBe(200);
  });

  it('keeps the archive complete through faults, and records a segment that is gone as a gap', async () => {
    fixture = await startHlsFixture({ seconds: 20 });
    let n = 0;
    const faults = ['503', 'reset', 'stall'] as const;
    fixture.fail = (requestPath) => {
      if (requestPath.endsWith('seg00007.ts')) return 404; // this segment's file is gone on the server
      n += 1;
      // a deterministic 15%: 3 of every 20 requests fail, rotating through the fault kinds
      if (n % 20 >= 3) return null;
      const fault = faults[Math.floor(n / 20) % faults.length] as (typeof faults)[number];
      return fault === '503' ? 503 : fault;
    };
    const api = await serve();
    const id = await archive(fixture.url);
    await fixture.start();
    const done = await settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');

    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture).toMatchObject({ state: 'finalized', endReason: 'endlist', complete: false });
    expect(details.capture.gaps).toEqual([{ firstSequence: 7, lastSequence: 7, seconds: expect.closeTo(1, 1), reason: expect.stringContaining('404') }]);
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toContain('GAP: sequences 7-7');
    expect(log).toMatch(/attempt 1 failed/);
    // every other segment arrived: 20 one-second segments of 30 frames, less the lost one
    const ours = await probe(archivedFile(id));
    expect(ours.frames).toBe(600 - 30);
  });

  it('resumes after the worker is killed with SIGKILL, missing no segment', async () => {
    const { id, api } = await interruptMidCapture('SIGKILL');
    const done = await settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toContain('stopped answering');
    expect(log).toMatch(/resuming/);
    const ours = await probe(archivedFile(id));
    expect(ours.frames).toBe(900);
  });

  it('ends by idle when the source stops without ENDLIST, keeping what was captured', async () => {
    fixture = await startHlsFixture({ seconds: 60 });
    const api = await serve();
    const id = await archive(fixture.url);
    void fixture.start();
    await fixture.seen(SEGMENT_REQUEST, 6);
    fixture.kill();
    const done = await settled(id);
    expect(done.status).toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.endReason).toBe('idle');
    expect(details.length).toBeGreaterThanOrEqual(5);
  });

  it('fails a stream that never goes live, with the reason', async () => {
    fixture = await startHlsFixture({ seconds: 5 });
    const api = await serve({ KURA_NEVER_LIVE_SECONDS: '2' });
    const id = await archive(fixture.url);
    const done = await waitForRecord(db.url, id, (r) => r.status !== 'upcoming');
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/No stream appeared within/);
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details).toMatchObject({ status: 'failed', finished: false, failureReason: done.failure_reason, capture: null });
    expect((await fetch(`${api}/api/download/${id}/video`)).status).toBe(409);
  });

  it('ends at the byte ceiling and archives what it captured', async () => {
    fixture = await startHlsFixture({ seconds: 30 });
    const api = await serve({ KURA_CAPTURE_MAX_BYTES: '400000' });
    const id = await archive(fixture.url);
    void fixture.start();
    const done = await settled(id);
    fixture.kill();
    expect(done.status).toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.endReason).toBe('size_limit');
    const stored = details.capture.parts.reduce((sum: number, p: { bytes: number }) => sum + p.bytes, 0);
    expect(stored).toBeGreaterThanOrEqual(400_000);
    expect(details.length).toBeLessThan(30);
  });

  it('does not start a capture on a disk with less free space than the operator keeps', async () => {
    const { done, details } = await archiveWritten(writeDiscontinuityStream, { KURA_MIN_FREE_DISK_MB: String(10 ** 9) }); // 1 PB: never free here
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/disk_full/);
    expect(details.capture.endReason).toBe('disk_full');
    expect(fixture.requests.some((r) => r.endsWith('.ts'))).toBe(false);
  });

  it('survives a discontinuity: a new part, joined into one archive with every frame', async () => {
    const { id, done, details } = await archiveWritten(writeDiscontinuityStream);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    expect(details.capture.parts.map((p: { segments: number }) => p.segments)).toEqual([5, 5]);
    expect(details.capture.gaps).toEqual([]);
    const ours = await probe(archivedFile(id));
    expect(ours.frames).toBe(300);
    // the parts' chunks are gone from the store with the archive stored, and the spool with them
    expect(await readdir(path.join(dataDir, 'archive'))).toEqual(['archives']);
    expect(await readdir(path.join(dataDir, 'spool'))).toEqual([]);
    expect(Math.abs(ours.duration - 10)).toBeLessThanOrEqual(0.2);
  });

  it('fetches again, from the source, what a crashed worker had not uploaded and its disk lost', async () => {
    const lostDisk = (killed: string) => rm(path.join(dataDir, 'spool', killed), { recursive: true });
    const { id, api } = await interruptMidCapture('SIGKILL', {}, lostDisk);
    const done = await settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]); // the window still listed every segment
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toMatch(/from sequence 0 on is neither stored nor on this worker's disk; fetching it again/);
    expect((await probe(archivedFile(id))).frames).toBe(900);
  });

  it('records what left the window meanwhile as a gap, never writing past a hole', async () => {
    const lostDisk = (killed: string) => rm(path.join(dataDir, 'spool', killed), { recursive: true });
    const { id, api } = await interruptMidCapture('SIGKILL', { listSize: 4 }, lostDisk);
    const done = await settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([{ firstSequence: 0, lastSequence: expect.any(Number), seconds: expect.any(Number), reason: 'left the window before it could be fetched' }]);
    const lost = details.capture.gaps[0].lastSequence + 1;
    expect(lost).toBeGreaterThanOrEqual(4);
    expect(details.capture.parts).toEqual([expect.objectContaining({ part: 1, segments: 30 - lost })]);
    expect((await probe(archivedFile(id))).frames).toBe(900 - 30 * lost); // the rest whole, no garbage
  });

  it('records fMP4 segments behind their initialization section, across a SIGKILL', async () => {
    const { id, api } = await interruptMidCapture('SIGKILL', { segmentType: 'fmp4' });
    const done = await settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    // the resumed capture cannot know the first part's section: it starts a part of its own
    expect(details.capture.parts.length).toBe(2);
    expect(fixture.requests.filter((r) => r.endsWith('/init.mp4')).length).toBeGreaterThanOrEqual(2);
    const ours = await probe(archivedFile(id));
    expect(ours.frames).toBe(900);
    expect(Math.abs(ours.duration - 30)).toBeLessThanOrEqual(0.2);
  });

  it('records a stream kept in one file as byte ranges (EXT-X-BYTERANGE, EXT-X-MAP BYTERANGE)', async () => {
    const { id, done, details } = await archiveWritten(writeSingleFileStream);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    expect(details.capture.gaps).toEqual([]);
    expect(details.capture.parts.map((p: { segments: number }) => p.segments)).toEqual([5]);
    const ours = await probe(archivedFile(id));
    expect(ours.frames).toBe(150);
    expect(Math.abs(ours.duration - 5)).toBeLessThanOrEqual(0.1);
  });

  it('decrypts AES-128 segments as it stores them, fetching the key once', async () => {
    const { id, done, details } = await archiveWritten((dir) => writeEncryptedStream(dir, 'AES-128'));
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    expect(details.capture.gaps).toEqual([]);
    expect(fixture.requests.filter((r) => r.endsWith('/key.bin'))).toHaveLength(1);
    const ours = await probe(archivedFile(id));
    expect(ours.frames).toBe(120);
  });

  it('ends with the reason when segments use encryption it cannot undo (SAMPLE-AES)', async () => {
    const { done, details } = await archiveWritten((dir) => writeEncryptedStream(dir, 'SAMPLE-AES'));
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/unsupported_encryption/);
    expect(details.capture.endReason).toBe('unsupported_encryption');
    expect(fixture.requests.some((r) => r.endsWith('.ts'))).toBe(false); // nothing fetched in vain
  });

  it('hands a capture over on SIGTERM: the next worker resumes it without a gap', async () => {
    const { id, api, exit } = await interruptMidCapture('SIGTERM');
    expect(exit.code).toBe(0);
    const done = await settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toContain('stopped; the capture continues on the next worker');
    expect((await probe(archivedFile(id))).frames).toBe(900);
  });

  it('refuses a source on a loopback address unless the operator allows private sources', async () => {
    fixture = await startHlsFixture({ seconds: 1 });
    await writeDiscontinuityStream(path.join(fixture.dir, 'live'));
    const api = await serve({ KURA_ALLOW_PRIVATE_SOURCES: 'false' });
    const id = await archive(fixture.url);
    const done = await waitForRecord(db.url, id, (r) => r.status !== 'upcoming');
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/will not fetch this source.*private or loopback/);
    expect(fixture.requests).toEqual([]); // not a single request reached it
    expect((await fetch(`${api}/api/video/${id}`).then((r) => r.json())).status).toBe('failed');
    // submitted where private sources are refused, a literal loopback address is turned away at once
    const refused = await runKura(['archive', fixture.url], env({ KURA_ALLOW_PRIVATE_SOURCES: 'false' }), path.dirname(dataDir));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/will not fetch this source: .*refusing a private or loopback address/);
  });
});
