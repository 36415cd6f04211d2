import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { finishedRecord, storeArchive } from '../support/archives.js';
import {
  chaptersOfFile,
  keyframeAtOrBefore,
  type LongArchive,
  makeLongArchive,
  packetCount,
  packetSizes,
  probe,
  storeAsVideo,
} from '../support/long-archive.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';

// Clips of a finished archive on the fs store, cut by the real ffmpeg: what a person downloads.
let kura: TestApp;
let archive: LongArchive;
const ID = 'clipFs00001';

beforeAll(async () => {
  [kura, archive] = await Promise.all([startTestApp({}, { env: { KURA_CLIP_MAX_SECONDS: '600' } }), makeLongArchive(20)]);
  await kura.db.livestreams.upsertMany([
    {
      ...finishedRecord(ID, await storeAsVideo(createFsStore(kura.archiveDir), ID, archive)),
      title: 'Karaoke 歌枠',
    },
  ]);
}, 120_000);
afterAll(() => kura.close());

/** The clip's bytes in a file of their own, for ffprobe. */
async function saved(bytes: Buffer): Promise<string> {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'kura-clip-')), 'clip.mp4');
  await writeFile(file, bytes);
  return file;
}

describe('GET /api/download/{id}/clip on the fs store', () => {
  it('answers the range as an MP4 cut without re-encoding from the keyframe at or before start, saying where it starts and how long it is', async () => {
    const response = await kura.app.inject({ method: 'GET', url: `/api/download/${ID}/clip?start=2:00.7&end=0h04m01s` });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('video/mp4');
    // keyframes about every 2 s: a seek to 120.7 s lands on the one before it
    const keyframe = await keyframeAtOrBefore(archive.file, 120.7);
    expect(keyframe).toBeGreaterThan(118);
    expect(Number(response.headers['x-kura-clip-start'])).toBeCloseTo(keyframe, 3);
    expect(Number(response.headers['x-kura-clip-duration'])).toBeCloseTo(241 - keyframe, 3);
    expect(response.headers['content-disposition']).toContain(encodeURIComponent('Karaoke 歌枠 (2m00s-4m01s) [clipFs00001].mp4'));
    const clip = await saved(response.rawPayload);
    const { seconds, codecs } = await probe(clip);
    // stream copy ends on whole frames and audio packets (B-frames reorder the last ones): the header says the length within half a second
    expect(Math.abs(seconds - (241 - keyframe))).toBeLessThan(0.5);
    expect(codecs.sort()).toEqual(['aac', 'h264']);
    // stream copy: the clip's first packets are the source's from that keyframe, size for size
    expect(await packetSizes(clip, 'v:0', 30)).toEqual(await packetSizes(archive.file, 'v:0', 30, keyframe));
  });

  it('refuses a bad range with 400 naming the field, and what cannot be clipped with the reason', async () => {
    const cases: Array<[string, number, string, RegExp]> = [
      ['start=abc&end=10', 400, 'invalid_parameter', /^start: "abc" is not a time/],
      ['start=10&end=1:99', 400, 'invalid_parameter', /^end: "1:99" is not a time/],
      ['start=30&end=20', 400, 'invalid_parameter', /^end: 0:20 is not after start \(0:30\)/],
      ['start=21:00&end=22:00', 400, 'invalid_parameter', /^start: 21:00 is past what is recorded \(20:00\)/],
      ['start=0&end=10:01', 400, 'invalid_parameter', /^end: a clip is at most 10:00 long/],
      ['end=10', 400, 'invalid_parameter', /^start: give start and end \(or last\)/],
      ['start=10', 400, 'invalid_parameter', /^end: give start and end \(or last\)/],
      ['last=30&start=10', 400, 'invalid_parameter', /^last: give last alone/],
      ['last=11:00', 400, 'invalid_parameter', /^last: a clip is at most 10:00 long/],
    ];
    for (const [query, status, code, detail] of cases) {
      const response = await kura.app.inject({ method: 'GET', url: `/api/download/${ID}/clip?${query}` });
      expect(response.statusCode, query).toBe(status);
      expect(response.json(), query).toMatchObject({ code });
      expect((response.json() as { detail: string }).detail, query).toMatch(detail);
    }
    const unknown = await kura.app.inject({ method: 'GET', url: '/api/download/noSuchOne01/clip?start=0&end=10' });
    expect(unknown.json()).toMatchObject({ status: 404, code: 'livestream_not_found' });
    // stored bytes that are no video (a corrupt archive): nothing to cut, and nothing half sent
    await storeArchive(createFsStore(kura.archiveDir), kura.db.livestreams, 'notAVideo01');
    const noise = await kura.app.inject({ method: 'GET', url: '/api/download/notAVideo01/clip?start=0&end=10' });
    expect(noise.json()).toMatchObject({ status: 409, code: 'archive_unreadable' });
    await kura.db.livestreams.upsertMany([{ ...finishedRecord('stillLive01'), status: 'live', startedAt: new Date() }]);
    const live = await kura.app.inject({ method: 'GET', url: '/api/download/stillLive01/clip?start=0&end=10' });
    expect(live.json()).toMatchObject({ status: 409, code: 'capture_not_started' });
  });

  it('says where a stretch the recording lost lies inside the clip', async () => {
    const captures = createCaptureRepo(kura.db.pool);
    await captures.claim(ID, 'clip-test', 30);
    await captures.recordGap(ID, { firstSequence: 150, lastSequence: 151, seconds: 4, reason: 'gone from the playlist' }, []);
    // as the compaction of its finalized capture places it
    await kura.db.pool.query('update capture_gaps set at_seconds = 300 where livestream_id = $1', [ID]);
    const response = await kura.app.inject({ method: 'GET', url: `/api/download/${ID}/clip?start=4:50&end=5:30` });
    expect(response.statusCode, response.body).toBe(200);
    const start = Number(response.headers['x-kura-clip-start']);
    expect(response.headers['x-kura-clip-lost']).toBe(`${(300 - start).toFixed(3)}+4.000`);
    const before = await kura.app.inject({ method: 'GET', url: `/api/download/${ID}/clip?start=4:00&end=4:50` });
    expect(before.headers['x-kura-clip-lost']).toBeUndefined();
  });

  it('cuts the last seconds recorded when asked for last', async () => {
    const response = await kura.app.inject({ method: 'GET', url: `/api/download/${ID}/clip?last=30` });
    expect(response.statusCode, response.body).toBe(200);
    const keyframe = await keyframeAtOrBefore(archive.file, 1170);
    expect(Number(response.headers['x-kura-clip-start'])).toBeCloseTo(keyframe, 3);
    expect(Number(response.headers['x-kura-clip-duration'])).toBeCloseTo(1200 - keyframe, 3);
  });

  it('ends a clip asked past the end of the recording where the recording ends', async () => {
    const response = await kura.app.inject({ method: 'GET', url: `/api/download/${ID}/clip?start=1195&end=1300` });
    expect(response.statusCode, response.body).toBe(200);
    const keyframe = await keyframeAtOrBefore(archive.file, 1195);
    expect(Number(response.headers['x-kura-clip-start'])).toBeCloseTo(keyframe, 3);
    expect(Number(response.headers['x-kura-clip-duration'])).toBeCloseTo(1200 - keyframe, 3);
    expect((await probe(await saved(response.rawPayload))).seconds).toBeGreaterThan(1199 - keyframe);
  });

  it('cuts one clip at a time for a caller: a second while the first is sent is refused with 429 and Retry-After, and the place is back once the first client goes', async () => {
    const address = await kura.app.listen({ port: 0, host: '127.0.0.1' });
    // ten minutes: more than the sockets between ffmpeg and the client hold, so it is still being cut while unread
    const first = await fetch(`${address}/api/download/${ID}/clip?start=0&end=10:00`);
    expect(first.status).toBe(200);
    const second = await kura.app.inject({ method: 'GET', url: `/api/download/${ID}/clip?start=0&end=10` });
    expect(second.statusCode).toBe(429);
    expect(second.json()).toMatchObject({ code: 'too_many_requests' });
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    await first.body?.cancel();
    await expect.poll(async () => (await kura.app.inject({ method: 'GET', url: `/api/download/${ID}/clip?start=0&end=10` })).statusCode).toBe(200);
  });
});

describe('GET /api/download/{id}/video?chapters=true', () => {
  it('sends the archive with its moments as MP4 chapters, each to the next; without moments, the file as it is', async () => {
    const plain = await kura.app.inject({ url: `/api/download/${ID}/video?chapters=true` });
    expect(plain.headers['content-length']).toBe(String(archive.bytes));
    await addUser(kura, 'chapters');
    const cookie = await logIn(kura, 'chapters');
    for (const [at, text] of [
      [600.5, 'Song = 残響散歌; #2'],
      [0, 'Opening'],
    ] as const) {
      const added = await kura.app.inject({ method: 'POST', url: `/api/video/${ID}/moments`, headers: { ...SAME_ORIGIN, cookie }, payload: { at, text } });
      expect(added.statusCode, added.body).toBe(201);
    }
    const response = await kura.app.inject({ url: `/api/download/${ID}/video?chapters=true` });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    expect(response.headers['content-disposition']).toContain('attachment');
    const file = await saved(response.rawPayload);
    expect(await chaptersOfFile(file)).toEqual([
      { start: 0, end: 600.5, title: 'Opening' },
      { start: 600.5, end: 1200, title: 'Song = 残響散歌; #2' },
    ]);
    // copied, not re-encoded: the same pictures
    expect(await packetSizes(file, 'v:0', 20, 900)).toEqual(await packetSizes(archive.file, 'v:0', 20, 900));
    // every video and audio packet (beside them, the chapters' own text track)
    expect(await packetCount(file)).toMatchObject(await packetCount(archive.file));
  });
});
