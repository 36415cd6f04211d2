import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCaptureHarness } from '../support/capture-harness.js';
import { runKura, type KuraProcess } from '../support/cli.js';
import { probe, SEGMENT_REQUEST } from '../support/hls-fixture.js';
import { remuxReference, writeDiscontinuityStream, writeEncryptedStream, writeSingleFileStream } from '../support/hls-streams.js';
import { waitForRecord } from '../support/records.js';

// Real captures: ffmpeg encodes a live HLS stream in real time on 127.0.0.1, `kura serve`
// (the built command, its own process) records it, and the results are measured with ffprobe.
// Crashes, handovers and faults are in capture-resume.test.ts.
const h = useCaptureHarness();

describe('capturing a live HLS stream', () => {
  it('archives a 20 s stream queued before it starts, whole, and serves it; the server logs each step, never the URL’s secret', async () => {
    const fixture = await h.startFixture({ seconds: 20 });
    const api = await h.serve();
    // the fixture ignores the query: the token is a secret of the URL, as a CDN's would be
    const source = `${fixture.url}?token=s3cret-token`;
    const id = await h.archive(source);
    expect((await fetch(`${api}/api/queue`).then((r) => r.json()))[0]).toMatchObject({ id, status: 'upcoming', submitters: [expect.stringMatching(/^cli\//)] });

    const encoded = fixture.start();
    await waitForRecord(h.db.url, id, (r) => r.status === 'live');
    await fixture.seen(SEGMENT_REQUEST, 5);
    const earlyLog = await fetch(`${api}/api/logz?url=${encodeURIComponent(source)}`).then((r) => r.text());
    expect(earlyLog).toContain('[kura] recording');
    await fixture.seen(SEGMENT_REQUEST, 12);
    const laterLog = await fetch(`${api}/api/logz`).then((r) => r.text());
    expect(laterLog.length).toBeGreaterThan(earlyLog.length);
    expect(laterLog).toContain('segment 10 stored');
    await encoded;

    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    expect((await fetch(`${api}/api/logz?id=${id}`)).status).toBe(404);

    const archived = h.archivedFile(id);
    const reference = path.join(fixture.dir, 'reference.mp4');
    await remuxReference(path.join(fixture.dir, 'live', 'index.m3u8'), reference);
    const [ours, theirs] = await Promise.all([probe(archived), probe(reference)]);
    expect(Math.abs(ours.duration - theirs.duration)).toBeLessThanOrEqual(0.1);
    expect(ours.frames).toBe(theirs.frames);
    expect(ours.frames).toBe(600);

    const [record] = await fetch(`${api}/api/history`).then((r) => r.json());
    expect(record).toMatchObject({
      id,
      finished: true,
      title: 'Fixture karaoke',
      fileSizeBytes: (await stat(archived)).size,
      length: Math.round(ours.duration),
    });
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
    // the operator's log: a line for each step, and the URL's secret in none
    const kura = h.kura as KuraProcess;
    const said = (start: string) => kura.waitForLog((line) => String(line.msg).startsWith(start));
    await said(`live, recording: ${id} "Fixture karaoke"`);
    await said(`capture ended: ${id} (endlist), 0 gap(s)`);
    await said(`archived: ${id} "Fixture karaoke", 20 s, ${bytes.length} bytes`);
    const thumbnail = await fetch(`${api}/api/download/${id}/thumbnail`);
    expect(thumbnail.headers.get('content-type')).toBe('image/jpeg');
    expect(thumbnail.status).toBe(200);
    kura.child.kill('SIGTERM');
    const { stdout } = await kura.exited;
    expect(stdout).not.toContain('s3cret-token');
    // nor the encoder log anyone may download: its URLs are redacted as the public JSON's are
    expect(log).toContain(`recording ${fixture.url}?token=*** from sequence 0`);
    expect(log).not.toContain('s3cret-token');
  });

  it('ends by idle when the source stops without ENDLIST, keeping what was captured', async () => {
    const fixture = await h.startFixture({ seconds: 60 });
    const api = await h.serve();
    const id = await h.archive(fixture.url);
    void fixture.start();
    await fixture.seen(SEGMENT_REQUEST, 6);
    fixture.kill();
    const done = await h.settled(id);
    expect(done.status).toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.endReason).toBe('idle');
    expect(details.length).toBeGreaterThanOrEqual(5);
  });

  it('fails a stream that never goes live, with the reason', async () => {
    const fixture = await h.startFixture({ seconds: 5 });
    const api = await h.serve({ KURA_NEVER_LIVE_SECONDS: '2' });
    const id = await h.archive(fixture.url);
    const done = await waitForRecord(h.db.url, id, (r) => r.status !== 'upcoming');
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/No stream appeared within/);
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details).toMatchObject({ status: 'failed', finished: false, failureReason: done.failure_reason, capture: null });
    expect((await fetch(`${api}/api/download/${id}/video`)).status).toBe(409);
  });

  it('ends at the byte ceiling and archives what it captured', async () => {
    const fixture = await h.startFixture({ seconds: 30 });
    const api = await h.serve({ KURA_CAPTURE_MAX_BYTES: '400000' });
    const id = await h.archive(fixture.url);
    void fixture.start();
    const done = await h.settled(id);
    fixture.kill();
    expect(done.status).toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.endReason).toBe('size_limit');
    const stored = details.capture.parts.reduce((sum: number, p: { bytes: number }) => sum + p.bytes, 0);
    expect(stored).toBeGreaterThanOrEqual(400_000);
    expect(details.length).toBeLessThan(30);
  });

  it('survives a discontinuity: a new part, joined into one archive with every frame', async () => {
    const { id, done, details } = await h.archiveWritten(writeDiscontinuityStream);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    expect(details.capture.parts.map((p: { segments: number }) => p.segments)).toEqual([5, 5]);
    expect(details.capture.gaps).toEqual([]);
    const ours = await probe(h.archivedFile(id));
    expect(ours.frames).toBe(300);
    // the parts' chunks are deleted from the store once the archive is stored (just after the
    // record says finished: a crash before leaves them to the next finalize), and the spool with them
    await expect.poll(() => readdir(path.join(h.dataDir, 'archive'))).toEqual(['archives']);
    await expect.poll(() => readdir(path.join(h.dataDir, 'spool'))).toEqual([]);
    expect(Math.abs(ours.duration - 10)).toBeLessThanOrEqual(0.2);
  });

  it('records a stream kept in one file as byte ranges (EXT-X-BYTERANGE, EXT-X-MAP BYTERANGE)', async () => {
    const { id, done, details } = await h.archiveWritten(writeSingleFileStream);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    expect(details.capture.gaps).toEqual([]);
    expect(details.capture.parts.map((p: { segments: number }) => p.segments)).toEqual([5]);
    const ours = await probe(h.archivedFile(id));
    expect(ours.frames).toBe(150);
    expect(Math.abs(ours.duration - 5)).toBeLessThanOrEqual(0.1);
  });

  it('decrypts AES-128 segments as it stores them, fetching the key once; a window from sequence 10 is a beginning missed', async () => {
    const { id, done, details } = await h.archiveWritten((dir) => writeEncryptedStream(dir, 'AES-128'));
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    // the playlist lists sequences 10–13 (1 s each): the broadcast's first 10 s were gone when Kura first looked
    expect(details.capture.gaps).toEqual([
      { firstSequence: 0, lastSequence: 9, seconds: 10, reason: expect.stringContaining('began before Kura first looked') },
    ]);
    expect(details.capture.complete).toBe(false);
    expect(h.fixture.requests.filter((r) => r.endsWith('/key.bin'))).toHaveLength(1);
    const ours = await probe(h.archivedFile(id));
    expect(ours.frames).toBe(120);
  });

  it('ends with the reason when segments use encryption it cannot undo (SAMPLE-AES)', async () => {
    const { done, details } = await h.archiveWritten((dir) => writeEncryptedStream(dir, 'SAMPLE-AES'));
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/unsupported_encryption/);
    expect(details.capture.endReason).toBe('unsupported_encryption');
    expect(h.fixture.requests.some((r) => r.endsWith('.ts'))).toBe(false); // nothing fetched in vain
  });

  it('refuses a source on a loopback address unless the operator allows private sources, and a playlist URL with a typo', async () => {
    const fixture = await h.startFixture({ seconds: 1 });
    await writeDiscontinuityStream(path.join(fixture.dir, 'live'));
    const api = await h.serve({ KURA_ALLOW_PRIVATE_SOURCES: 'false' });
    const id = await h.archive(fixture.url);
    const done = await waitForRecord(h.db.url, id, (r) => r.status !== 'upcoming');
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/will not fetch this source.*only public addresses are fetched: .* is a loopback address/);
    // the submission's one look (`kura archive` here allows private sources); from the server, not a single request
    expect(fixture.requests).toEqual(['/live/index.m3u8']);
    expect((await fetch(`${api}/api/video/${id}`).then((r) => r.json())).status).toBe('failed');
    // submitted where private sources are refused, a literal loopback address is turned away at once
    const refused = await runKura(['archive', fixture.url], h.env({ KURA_ALLOW_PRIVATE_SOURCES: 'false' }), path.dirname(h.dataDir));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/will not fetch this source: .*only public addresses are fetched: .* is a loopback address/);
    // a typo in the URL is refused with the reason
    const typo = await runKura(['archive', fixture.url.replace('index.m3u8', 'indx.m3u8')], h.env(), path.dirname(h.dataDir));
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/The playlist cannot be read: .*indx\.m3u8: HTTP 404\. To record a stream that is not on air yet, follow/);
  });
});
