import { readdir, stat } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSpool } from '../../src/adapters/capture/spool.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFfmpegTools } from '../../src/adapters/media/ffmpeg-tools.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import { finalizeArchive } from '../../src/core/capture/finalize-archive.js';
import type { CaptureRepo } from '../../src/core/capture/ports.js';
import { keepLiveFrame, refreshLiveFrame } from '../../src/core/playback/refresh-live-frame.js';
import { createFrameRequests } from '../../src/core/playback/frame-requests.js';
import { listenForChanges } from '../../src/adapters/db/change-listener.js';
import { startFrameRequestsLoop } from '../../src/jobs/loops/frame-requests.js';
import { FRAME_REQUESTS_CHANNEL } from '../../src/jobs/runtime/notify-channels.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';
import { writeDiscontinuityStream } from '../support/hls-streams.js';
import { liveFrameDeps, recordLive } from '../support/live-capture.js';

// A recording's figures and recent frame on a real PostgreSQL, with the real recorder and ffmpeg:
// the fixture's stream is 5 s at 320x180, then 5 s at 640x360 after a discontinuity (1 s segments).
let kura: TestApp;
let spoolDir: string;
let captures: CaptureRepo;
let fixture: HlsFixture;

beforeEach(async () => {
  spoolDir = await mkdtemp(path.join(os.tmpdir(), 'kura-progress-spool-'));
  kura = await startTestApp({}, {}, { spoolDir });
  captures = createCaptureRepo(kura.db.pool);
  fixture = await startHlsFixture({ seconds: 1 });
  await writeDiscontinuityStream(path.join(fixture.dir, 'live'));
});
afterEach(async () => {
  await fixture.close();
  await kura.close();
});

const media = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: 1024 * 1024 });

const frameDeps = () => liveFrameDeps({ db: kura.db, archiveDir: kura.archiveDir, captures, spoolDir });

const details = async (id: string) => (await kura.app.inject({ url: `/api/video/${id}` })).json();

/** Width and height of a baseline JPEG, read from its start-of-frame marker. */
function jpegSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  for (let at = 2; at < bytes.length; at += 2 + bytes.readUInt16BE(at + 2)) {
    if (bytes[at + 1] === 0xc0) return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
  }
  throw new Error('no start-of-frame marker');
}

/** The segment files of the fixture's part (`a` or `b`), in order. */
async function segmentSizes(name: 'a' | 'b'): Promise<number[]> {
  const dir = path.join(fixture.dir, 'live');
  const files = (await readdir(dir)).filter((f) => f.startsWith(name) && f.endsWith('.ts')).sort();
  return Promise.all(files.map(async (f) => (await stat(path.join(dir, f))).size));
}

describe('a recording’s figures', () => {
  it('answers on the record and its queue item what was recorded so far (elapsed time, bytes, the bitrate of its segments, gaps), and none once it ended (nor a frame made meanwhile)', async () => {
    await recordLive({ kura, captures, spoolDir, playlistUrl: fixture.url }, 'figures');
    await kura.db.pool.query(`update captures set started_at = now() - interval '90 seconds' where livestream_id = 'figures'`);
    await captures.recordGap('figures', { firstSequence: 10, lastSequence: 11, seconds: 2, reason: 'gone from the playlist' }, []);

    const [a, b] = [await segmentSizes('a'), await segmentSizes('b')];
    const sum = (sizes: number[]) => sizes.reduce((total, size) => total + size, 0);
    // the first segment of each part has no known start among the last ones read: left out of the rate
    const measured = sum(a.slice(1)) + sum(b.slice(1));
    const progress = (await details('figures')).capture.progress;
    expect(progress).toMatchObject({ bytes: sum(a) + sum(b), recordedSeconds: expect.closeTo(10, 1), gaps: 1, lostSeconds: 2, frameAt: null });
    expect(progress.bitsPerSecond / ((measured * 8) / 8)).toBeCloseTo(1, 1);
    expect(progress.elapsedSeconds).toBeGreaterThanOrEqual(90);
    expect(progress.elapsedSeconds).toBeLessThan(120);

    const queued = (await kura.app.inject({ url: '/api/queue' })).json();
    // the two answers may fall on either side of a 30-s step of the frame URL's `look` (and of a second of elapsed time)
    const lookStep = (url: string) => Number(new URL(url).searchParams.get('look'));
    const { elapsedSeconds, frameUrl, ...figures } = progress;
    const item = queued.find((r: { id: string }) => r.id === 'figures').capture.progress;
    expect(item).toMatchObject(figures);
    expect(item.elapsedSeconds).toBeGreaterThanOrEqual(elapsedSeconds);
    expect(item.frameUrl.replace(/&look=\d+$/, '')).toBe(frameUrl.replace(/&look=\d+$/, ''));
    expect(lookStep(item.frameUrl) - lookStep(frameUrl)).toBeOneOf([0, 1]);
    expect((await kura.app.inject({ url: '/api/video/figures/frame.jpg' })).json()).toMatchObject({ status: 404, code: 'live_frame_not_found' });

    // the capture ends while a frame is being made: that frame is deleted again, not left for finalize to miss
    const deps = frameDeps();
    const endingMeanwhile = {
      frameStored: async (...args: Parameters<typeof deps.frames.frameStored>) => {
        await captures.end('figures', 'endlist');
        return deps.frames.frameStored(...args);
      },
    };
    expect(await refreshLiveFrame({ ...deps, frames: endingMeanwhile }, 'figures', 'worker-1')).toBe('none');
    expect(await deps.store.stat(objectKeys.liveFrame('figures'))).toBeNull();

    // once the capture ended, nothing is being recorded: no figures; an upcoming record has no capture
    expect((await details('figures')).capture).toMatchObject({ state: 'ended', progress: null });
    await kura.db.pool.query(`insert into livestreams (id, platform, source_url, status, scheduled_start_at) values ('soon', 'hls', $1, 'upcoming', now())`, [
      fixture.url,
    ]);
    await kura.caughtUp(); // the new record's change empties the cached queue, which may show figures up to 5 s old
    const after = (await kura.app.inject({ url: '/api/queue' })).json();
    expect(after.map((r: { id: string; capture: unknown }) => [r.id, r.capture])).toEqual([
      ['figures', { progress: null }],
      ['soon', null],
    ]);
  });
});

describe('a recording’s recent frame', () => {
  it('is made only once someone asks for it: the ask reaches the worker recording it through PostgreSQL, which makes one at once', async () => {
    const id = 'looked';
    await recordLive({ kura, captures, spoolDir, playlistUrl: fixture.url }, id);
    // the worker's side, as `kura serve` runs it: the frame-requests loop on a LISTEN connection, and the capture's keepLiveFrame
    const frameRequests = createFrameRequests();
    const feed = await listenForChanges(kura.db.url, () => undefined, FRAME_REQUESTS_CHANNEL);
    const stopLoop = startFrameRequestsLoop({ deps: { frameRequests } }, { feed });
    const errors: Error[] = [];
    const stopFrames = keepLiveFrame({ ...frameDeps(), frameRequests }, id, 'worker-1', (error) => errors.push(error));
    try {
      // nobody asked yet: no frame; the record names the frame's URL, which changes every 30 s until there is one
      const before = (await details(id)).capture.progress;
      expect(before.frameAt).toBeNull();
      expect(before.frameUrl).toMatch(new RegExp(`^${TEST_PUBLIC_URL}/api/video/${id}/frame\\.jpg\\?at=0&look=\\d+$`));
      const asked = await kura.app.inject({ url: before.frameUrl.slice(TEST_PUBLIC_URL.length) });
      expect(asked.json()).toMatchObject({ status: 404, code: 'live_frame_not_found' });
      // the ask was a look: a frame of the last recorded segment (640x360) follows
      await expect.poll(async () => (await details(id)).capture.progress.frameAt, { timeout: 10_000 }).not.toBeNull();
      const after = (await details(id)).capture.progress;
      expect(after.frameUrl).toBe(`${TEST_PUBLIC_URL}/api/video/${id}/frame.jpg?at=${Date.parse(after.frameAt)}`);
      const served = await kura.app.inject({ url: after.frameUrl.slice(TEST_PUBLIC_URL.length) });
      expect(served.statusCode).toBe(200);
      expect(jpegSize(served.rawPayload)).toEqual({ width: 640, height: 360 });
      expect(errors).toEqual([]);
    } finally {
      stopFrames();
      stopLoop();
      await feed.close();
    }
  });

  it('is a JPEG of the last recorded segment (none before one), replaced by a newer one, cached until it changes, and the archive’s thumbnail once it is stored', async () => {
    const id = 'framed';
    await kura.db.pool.query(`insert into livestreams (id, platform, source_url, status, scheduled_start_at) values ('fresh', 'hls', $1, 'live', now())`, [
      fixture.url,
    ]);
    await captures.claim('fresh', 'worker-1', 30);
    expect(await refreshLiveFrame(frameDeps(), 'fresh', 'worker-1')).toBe('none'); // no segment recorded yet
    await recordLive({ kura, captures, spoolDir, playlistUrl: fixture.url }, id);
    // as if only the first part were recorded yet: its last segment is at 320x180
    const { rows: later } = await kura.db.pool.query(`delete from capture_segments where livestream_id = $1 and sequence >= 5 returning *`, [id]);
    await kura.db.pool.query(`update captures set next_sequence = 5 where livestream_id = $1`, [id]);
    expect(await refreshLiveFrame(frameDeps(), id, 'worker-1')).toBe('stored');
    const first = (await details(id)).capture.progress;
    expect(first.frameUrl).toBe(`${TEST_PUBLIC_URL}/api/video/${id}/frame.jpg?at=${Date.parse(first.frameAt)}`);
    const served = await kura.app.inject({ url: `/api/video/${id}/frame.jpg` });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(served.headers['cache-control']).toBe('public, max-age=30');
    expect(jpegSize(served.rawPayload)).toEqual({ width: 320, height: 180 });
    const again = await kura.app.inject({ url: `/api/video/${id}/frame.jpg`, headers: { 'if-none-match': served.headers.etag as string } });
    expect([again.statusCode, again.body]).toEqual([304, '']);

    // the second part is recorded: the next frame is of its last segment, at 640x360
    for (const row of later) {
      await kura.db.pool.query(`insert into capture_segments (livestream_id, sequence, part, end_offset, duration_seconds) values ($1, $2, $3, $4, $5)`, [
        id,
        row.sequence,
        row.part,
        row.end_offset,
        row.duration_seconds,
      ]);
    }
    await kura.db.pool.query(`update captures set next_sequence = 10 where livestream_id = $1`, [id]);
    expect(await refreshLiveFrame(frameDeps(), id, 'worker-1')).toBe('stored');
    const second = (await details(id)).capture.progress;
    expect((await readdir(path.join(spoolDir, id)).catch(() => [])).filter((name) => name.startsWith('live-frame'))).toEqual([]);
    expect(Date.parse(second.frameAt)).toBeGreaterThan(Date.parse(first.frameAt));
    expect(second.frameUrl).not.toBe(first.frameUrl);
    const replaced = await kura.app.inject({ url: `/api/video/${id}/frame.jpg`, headers: { 'if-none-match': served.headers.etag as string } });
    expect(replaced.statusCode).toBe(200);
    expect(jpegSize(replaced.rawPayload)).toEqual({ width: 640, height: 360 });

    // a worker that no longer records the capture makes no frame
    await kura.db.pool.query(`update captures set worker_id = 'worker-2' where livestream_id = $1`, [id]);
    expect(await refreshLiveFrame(frameDeps(), id, 'worker-1')).toBe('none');
    expect((await details(id)).capture.progress.frameAt).toBe(second.frameAt);

    await captures.end(id, 'endlist');
    await kura.db.pool.query(`update captures set worker_id = 'worker-1' where livestream_id = $1`, [id]);
    // the recording ended: no figures, but its frame is there until the archive is stored
    expect((await details(id)).capture.progress).toBeNull();
    expect((await kura.app.inject({ url: `/api/video/${id}/frame.jpg` })).statusCode).toBe(200);
    const store = createFsStore(kura.archiveDir);
    const finalize = {
      livestreams: kura.db.livestreams,
      captures,
      media,
      store,
      spool: createSpool(spoolDir),
      chatArchive: { store: async () => null },
      scheduler: { watch: async () => {} }, // ended 'endlist': final, nothing is looked at again
    };
    await finalizeArchive({ ...finalize, fetchImage: () => Promise.reject(new Error('no source thumbnail')) }, id, {
      workerId: 'worker-1',
      staleAfterSeconds: 30,
    });
    expect(await store.stat(objectKeys.liveFrame(id))).toBeNull();
    // the archive's thumbnail is that last frame (640x360), not one ffmpeg made again of the first part (320x180)
    const thumbnail = await kura.app.inject({ url: `/api/download/${id}/thumbnail` });
    expect(thumbnail.rawPayload).toEqual(replaced.rawPayload);
    expect(jpegSize(thumbnail.rawPayload)).toEqual({ width: 640, height: 360 });
    expect((await kura.app.inject({ url: `/api/video/${id}/frame.jpg` })).json()).toMatchObject({ status: 410, code: 'live_ended' });
  });
});
