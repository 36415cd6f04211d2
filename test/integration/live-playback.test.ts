import { mkdir, mkdtemp, rename } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSpool } from '../../src/adapters/capture/spool.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import type { CaptureRepo } from '../../src/core/capture/ports.js';
import type { StoredChunk } from '../../src/core/capture/capture.js';
import { createRecordedBytes } from '../../src/adapters/capture/recorded-bytes.js';
import { getLivePlaylist } from '../../src/core/playback/get-live-playlist.js';
import { PartFormats } from '../../src/core/playback/part-format-cache.js';
import { RecordedSegments } from '../../src/core/playback/recorded-segments.js';
import { readLiveMedia } from '../../src/core/playback/read-live-media.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { probe, startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';
import { writeDiscontinuityStream, writeEncryptedStream, writeSingleFileStream } from '../support/hls-streams.js';
import { liveFrameDeps, recordLive } from '../support/live-capture.js';
import { refreshLiveFrame } from '../../src/core/playback/refresh-live-frame.js';

// Live playback on a real PostgreSQL: the real recorder records a stream ffmpeg wrote into the
// spool and the fs store (a chunk every 2 s of media, so there are many), and the app serves what it recorded.
let kura: TestApp;
let spoolDir: string;
let captures: CaptureRepo;
let fixture: HlsFixture;
let url: string;

beforeEach(async () => {
  spoolDir = await mkdtemp(path.join(os.tmpdir(), 'kura-live-spool-'));
  kura = await startTestApp({}, {}, { spoolDir });
  captures = createCaptureRepo(kura.db.pool);
  fixture = await startHlsFixture({ seconds: 1 });
  url = await kura.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await fixture.close();
  await kura.close();
});

async function insertRecord(id: string, status: string): Promise<void> {
  await kura.db.pool.query(`insert into livestreams (id, platform, source_url, status, scheduled_start_at) values ($1, 'hls', $2, $3, now())`, [
    id,
    fixture.url,
    status,
  ]);
}

/** Records the fixture's (finished) stream as a capture still in progress: its record stays `live`, its capture `capturing`. */
const recordFixture = (id: string) => recordLive({ kura, captures, spoolDir, playlistUrl: fixture.url }, id);

/** Puts the last stored chunk of the capture back into the spool, as a chunk sealed but not yet uploaded; resolves with it. */
async function unstoreLastChunk(id: string): Promise<StoredChunk & { local: string }> {
  const last = (await captures.chunks(id)).at(-1)!;
  await kura.db.pool.query('delete from capture_chunks where livestream_id = $1 and object_key = $2', [id, last.key]);
  const local = createSpool(spoolDir).chunkPath(id, last.part, last.startOffset);
  await mkdir(path.dirname(local), { recursive: true });
  await rename(path.join(kura.archiveDir, last.key), local);
  return { ...last, local };
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

const playlistOf = (id: string) => kura.app.inject({ url: `/api/video/${id}/live.m3u8` });
const uris = (playlist: string) => playlist.split('\n').filter((line) => line.startsWith('live/'));

describe('the live playlist of a record being recorded', () => {
  it('plays an MPEG-TS capture of two parts from its first segment, from the store’s chunks and the spool, then ends it', async () => {
    await writeDiscontinuityStream(path.join(fixture.dir, 'live')); // 5 s, then 5 s at another size after a discontinuity
    await recordFixture('ts-live');
    // cut every 2 s of media, and where a part ends
    expect((await captures.chunks('ts-live')).map((c) => c.part)).toEqual([1, 1, 1, 2, 2, 2]);
    await unstoreLastChunk('ts-live');

    const live = await playlistOf('ts-live');
    expect(live.statusCode).toBe(200);
    expect(live.headers['content-type']).toBe('application/vnd.apple.mpegurl');
    expect(live.headers['cache-control']).toBe('no-cache');
    expect(live.body).toContain('#EXT-X-PLAYLIST-TYPE:EVENT');
    expect(live.body).not.toContain('#EXT-X-ENDLIST');
    expect(live.body.match(/#EXT-X-DISCONTINUITY/g)).toHaveLength(1);
    expect(uris(live.body)).toEqual([...[0, 1, 2, 3, 4].map((s) => `live/1/${s}.ts`), ...[5, 6, 7, 8, 9].map((s) => `live/2/${s}.ts`)]);
    const first = await kura.app.inject({ url: `/api/video/ts-live/live/1/0.ts` });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('video/mp2t');
    expect(first.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(first.rawPayload[0]).toBe(0x47);
    const head = await kura.app.inject({ method: 'HEAD', url: `/api/video/ts-live/live/1/0.ts` });
    expect([head.statusCode, head.headers['content-length'], head.body]).toEqual([200, String(first.rawPayload.length), '']);

    await captures.end('ts-live', 'endlist');
    expect((await playlistOf('ts-live')).body.endsWith('#EXT-X-ENDLIST\n')).toBe(true);
    // every frame, across the chunks, the spool file and the discontinuity (ffprobe reads a playlist without ENDLIST as a live edge)
    expect(await probe(`${url}/api/video/ts-live/live.m3u8`)).toMatchObject({ frames: 300 });
  });

  it('lists only the segments whose bytes this process can read: an api without the worker’s spool stops at the stored chunks', async () => {
    await writeDiscontinuityStream(path.join(fixture.dir, 'live'));
    await recordFixture('no-spool');
    await unstoreLastChunk('no-spool');
    const elsewhere = createRecordedBytes({
      captures,
      store: createFsStore(kura.archiveDir),
      spool: createSpool(await mkdtemp(path.join(os.tmpdir(), 'kura-other-'))),
    });
    const deps = {
      livestreams: kura.db.livestreams,
      captures,
      bytes: elsewhere,
      formats: new PartFormats(elsewhere),
      segments: new RecordedSegments(captures),
    };
    const [part2, stored] = [(await captures.parts('no-spool'))[1]!, (await captures.chunks('no-spool')).filter((c) => c.part === 2).at(-1)!];
    expect(stored.endOffset).toBeLessThan(part2.bytes); // the spool holds the end of part 2

    const listed = uris((await getLivePlaylist(deps, 'no-spool')).text);
    const segments = (await captures.segmentsFrom('no-spool', 0)).filter((s) => s.endOffset <= stored.endOffset || s.part === 1);
    expect(listed).toEqual(segments.map((s) => `live/${s.part}/${s.sequence}.ts`));
    expect(listed.length).toBeLessThan(10);
    // nothing past what it can read, even once the capture ended: no ENDLIST until all of it is in the store
    await captures.end('no-spool', 'endlist');
    expect(await getLivePlaylist(deps, 'no-spool')).toMatchObject({ ended: false });
    const unreadable = `/api/video/no-spool/live/2/9.ts`;
    expect((await kura.app.inject({ url: unreadable })).statusCode).toBe(200); // this app shares the spool
    await expect(readLiveMedia(deps, { id: 'no-spool', part: 2, sequence: 9 })).rejects.toMatchObject({ code: 'live_segment_not_found' });
  });

  it('reads a chunk that moved from the spool to the store while a player was reading it, under the same part and offset', async () => {
    await writeDiscontinuityStream(path.join(fixture.dir, 'live'));
    await recordFixture('moving');
    const chunk = await unstoreLastChunk('moving');
    const bytes = createRecordedBytes({ captures, store: createFsStore(kura.archiveDir), spool: createSpool(spoolDir) });
    const range = { start: chunk.startOffset, end: chunk.endOffset - 1 };
    const expected = await collect((await bytes.read('moving', chunk.part, range))!);
    const body = (await bytes.read('moving', chunk.part, range))!; // found in the spool…
    await rename(chunk.local, path.join(kura.archiveDir, chunk.key)); // …then uploaded, noted, and gone from the spool, as the worker does
    await kura.db.pool.query('insert into capture_chunks (livestream_id, part, start_offset, end_offset, object_key) values ($1, $2, $3, $4, $5)', [
      'moving',
      chunk.part,
      chunk.startOffset,
      chunk.endOffset,
      chunk.key,
    ]);
    expect(expected.length).toBe(chunk.endOffset - chunk.startOffset);
    expect((await collect(body)).equals(expected)).toBe(true);
  });

  it('follows a resumed capture that forgot segments whose bytes were lost, rather than listing them from memory', async () => {
    await writeDiscontinuityStream(path.join(fixture.dir, 'live'));
    await recordFixture('rewound');
    expect(uris((await playlistOf('rewound')).body)).toHaveLength(10); // read whole, and kept by the app
    await captures.rewind('rewound', 7, 2); // a worker resuming elsewhere found sequences 7 on neither stored nor on its disk
    expect(uris((await playlistOf('rewound')).body)).toEqual([...[0, 1, 2, 3, 4].map((s) => `live/1/${s}.ts`), 'live/2/5.ts', 'live/2/6.ts']);
    expect((await kura.app.inject({ url: '/api/video/rewound/live/2/8.ts' })).statusCode).toBe(404);
  });

  it('starts at the first segment recorded when the capture missed the beginning: the missed part is no gap to play through', async () => {
    await writeEncryptedStream(path.join(fixture.dir, 'live'), 'AES-128'); // its window lists sequences 10–13
    await recordFixture('late');
    expect((await captures.gaps('late')).map((gap) => [gap.firstSequence, gap.lastSequence])).toEqual([[0, 9]]);
    const { body } = await playlistOf('late');
    expect(body).toContain('#EXT-X-MEDIA-SEQUENCE:10\n');
    expect(body).not.toContain('#EXT-X-GAP');
    expect(body.match(/^live\/1\/\d+\.ts$/gm)).toEqual(['live/1/10.ts', 'live/1/11.ts', 'live/1/12.ts', 'live/1/13.ts']);
  });

  it('plays an fMP4 capture behind its initialization section, read from the part’s first bytes, and makes its recent frame so', async () => {
    await writeSingleFileStream(path.join(fixture.dir, 'live')); // 5 s of fMP4, its init section and segments byte ranges of one file
    await recordFixture('fmp4-live');
    const live = (await playlistOf('fmp4-live')).body;
    expect(live).toContain('#EXT-X-MAP:URI="live/1/init.mp4"');
    expect(uris(live)).toEqual([0, 1, 2, 3, 4].map((s) => `live/1/${s}.m4s`));
    const init = await kura.app.inject({ url: '/api/video/fmp4-live/live/1/init.mp4' });
    expect(init.statusCode).toBe(200);
    expect(init.headers['content-type']).toBe('video/mp4');
    expect(init.rawPayload.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const segment = await kura.app.inject({ url: '/api/video/fmp4-live/live/1/0.m4s' });
    expect(segment.headers['content-type']).toBe('video/iso.segment');
    expect(['moof', 'styp', 'sidx']).toContain(segment.rawPayload.subarray(4, 8).toString('latin1'));
    // the recent frame of an fMP4 capture: its last segment behind the part's initialization section
    expect(await refreshLiveFrame(liveFrameDeps({ db: kura.db, archiveDir: kura.archiveDir, captures, spoolDir }), 'fmp4-live', 'worker-1')).toBe('stored');
    const frame = await kura.app.inject({ url: '/api/video/fmp4-live/frame.jpg' });
    expect([frame.statusCode, frame.headers['content-type']]).toEqual([200, 'image/jpeg']);
    expect(frame.rawPayload.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    await captures.end('fmp4-live', 'endlist');
    expect(await probe(`${url}/api/video/fmp4-live/live.m3u8`)).toMatchObject({ frames: 150 });
  });
});

describe('live playback refuses what it cannot serve', () => {
  it('answers problems, never 500: before the capture, for unknown or malformed segments, for lost ones, and once finished', async () => {
    const problem = async (path: string) => {
      const response = await kura.app.inject({ url: path });
      expect(response.headers['content-type']).toContain('application/problem+json');
      return { status: response.statusCode, code: response.json().code as string };
    };
    await insertRecord('upcoming-one', 'upcoming');
    expect(await problem('/api/video/upcoming-one/live.m3u8')).toEqual({ status: 409, code: 'capture_not_started' });
    expect((await kura.app.inject({ url: '/api/video/upcoming-one/live.m3u8' })).headers['retry-after']).toBe('5'); // a player waits, then asks again
    expect(await problem('/api/video/upcoming-one/live/1/0.ts')).toEqual({ status: 404, code: 'live_segment_not_found' });
    expect(await problem('/api/video/nobody-here/live.m3u8')).toEqual({ status: 404, code: 'livestream_not_found' });
    expect(await problem('/api/video/nobody-here/live/1/0.ts')).toEqual({ status: 404, code: 'livestream_not_found' });

    await writeDiscontinuityStream(path.join(fixture.dir, 'live'));
    await recordFixture('refusing');
    await captures.recordGap('refusing', { firstSequence: 10, lastSequence: 11, seconds: 2, reason: 'left the window' }, []);
    for (const bad of ['0/0.ts', 'x/0.ts', '1/-1.ts', '1/0.mp4', '1/0', '1/99999999999999999.ts', '1/..%2F..%2Fetc.ts', '1/init.m4s']) {
      expect(await problem(`/api/video/refusing/live/${bad}`), bad).toEqual({ status: 400, code: 'invalid_parameter' });
    }
    for (const missing of ['1/7.ts', '3/0.ts', '1/999999999999999.ts', '1/10.ts', '1/init.mp4']) {
      expect(await problem(`/api/video/refusing/live/${missing}`), missing).toEqual({ status: 404, code: 'live_segment_not_found' });
    }
    expect((await playlistOf('refusing')).body).toContain('#EXT-X-GAP\n#EXTINF:1.000000,\nlive/2/10.ts');

    await kura.db.pool.query(`update livestreams set status = 'finished' where id = 'refusing'`);
    // not a redirect to the archive: an HLS player would load the whole MP4 as its playlist
    expect(await problem('/api/video/refusing/live.m3u8')).toEqual({ status: 410, code: 'live_ended' });
    expect(await problem('/api/video/refusing/live/1/0.ts')).toEqual({ status: 410, code: 'live_ended' });
    await kura.db.pool.query(`update livestreams set status = 'failed', failure_reason = 'the stream was private' where id = 'refusing'`);
    expect(await problem('/api/video/refusing/live.m3u8')).toEqual({ status: 409, code: 'archive_not_ready' });
  });
});
