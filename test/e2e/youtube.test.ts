import { chmod, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { YTDLP_STAND_IN } from '../support/app.js';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { e2eEnv } from '../support/serve-env.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { probe, SEGMENT_REQUEST, startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';
import { waitForRecord } from '../support/records.js';

// The whole YouTube pipeline with a STAND-IN for yt-dlp (test/support/bin/yt-dlp-stand-in.mjs):
// it answers like yt-dlp for a YouTube livestream and points at a live HLS fixture on 127.0.0.1.
const STAND_IN = YTDLP_STAND_IN;
const VIDEO_ID = 'dQw4w9WgXcQ';
let db: TestDatabase;
let cwd: string;
let stateFile: string;
let fixture: HlsFixture;
let kura: KuraProcess | null = null;
let worker: KuraProcess | null = null;

beforeEach(async () => {
  db = await createTestDatabase();
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-youtube-'));
  await chmod(cwd, 0o755);
  stateFile = path.join(cwd, 'yt-dlp-state.json');
});
afterEach(async () => {
  for (const running of [kura, worker]) {
    running?.child.kill('SIGKILL');
    await running?.exited;
  }
  kura = worker = null;
  await fixture?.close();
  await db.drop();
  await rm(cwd, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => e2eEnv(db.url, path.join(cwd, 'data'), { YTDLP_PATH: STAND_IN, YTDLP_STAND_IN_STATE: stateFile, ...extra });
/** What YouTube answers from now on; replaced whole (by a rename), so the stand-in never reads half of it. */
async function youtubeSays(state: { liveStatus: string; releaseTimestamp?: number; hlsUrl?: string; thumbnailUrl?: string; chat?: object }): Promise<void> {
  await writeFile(`${stateFile}.new`, JSON.stringify(state));
  await rename(`${stateFile}.new`, stateFile);
}
const archive = (url: string) => runKura(['archive', url], env(), cwd);

describe('archiving a YouTube livestream (yt-dlp stand-in)', () => {
  it('queues it under its video id with YouTube’s details, follows a moved schedule, and records it once live', async () => {
    fixture = await startHlsFixture({ seconds: 10 });
    const inAnHour = Math.floor(Date.now() / 1000) + 3600;
    await youtubeSays({ liveStatus: 'is_upcoming', releaseTimestamp: inAnHour });
    // the api alone first: no watch job runs before the streamer has moved the start (a worker
    // that checked first would, rightly, wait half an hour before its next look)
    kura = spawnKura(['serve'], env({ KURA_ROLE: 'api' }), cwd);
    const api = (await kura.waitForLog((l) => l.msg === 'kura api listening')).url as string;

    const queued = await archive(`https://youtu.be/${VIDEO_ID}?si=share`);
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout).toContain(`kura: ${VIDEO_ID} is upcoming`);
    const [upcoming] = await fetch(`${api}/api/queue`).then((r) => r.json());
    expect(upcoming).toMatchObject({
      id: VIDEO_ID,
      platform: 'youtube',
      status: 'upcoming',
      title: '【歌枠】Karaoke night 🎤 #42',
      channelId: 'UCfixture0000000000000001',
      sourceUrl: `https://www.youtube.com/watch?v=${VIDEO_ID}`,
      scheduledStart: new Date(inAnHour * 1000).toISOString(),
    });

    // the streamer moves the start to now: the worker's watch job follows, and finds the stream live once it is
    const now = Math.floor(Date.now() / 1000);
    await youtubeSays({ liveStatus: 'is_upcoming', releaseTimestamp: now });
    worker = spawnKura(['serve'], env({ KURA_ROLE: 'worker' }), cwd);
    const moved = await waitForRecord(db.url, VIDEO_ID, (r) => (r as { scheduled_start_at?: Date }).scheduled_start_at?.getTime() === now * 1000);
    expect(moved.status).toBe('upcoming');
    // the streamer's thumbnail, served where the stand-in says YouTube has it
    const poster = Buffer.from('\xff\xd8\xff\xe0 a streamer-made thumbnail', 'latin1');
    await writeFile(path.join(fixture.dir, 'live', 'poster.jpg'), poster);
    const thumbnailUrl = fixture.url.replace('index.m3u8', 'poster.jpg');
    const encoded = fixture.start();
    await fixture.onAir();
    await youtubeSays({ liveStatus: 'is_live', releaseTimestamp: now, hlsUrl: fixture.url, thumbnailUrl });
    await encoded;
    const done = await waitForRecord(db.url, VIDEO_ID, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    expect((await probe(path.join(cwd, 'data', 'archive', 'archives', VIDEO_ID, `${VIDEO_ID}.mp4`))).frames).toBe(300);
    // the thumbnail YouTube showed is archived with the stream, not a frame grab
    const thumbnail = await fetch(`${api}/api/download/${VIDEO_ID}/thumbnail`);
    expect(Buffer.from(await thumbnail.arrayBuffer()).equals(poster)).toBe(true);
    // a stream whose chat is off (yt-dlp offers no live_chat) simply has none
    const chat = await fetch(`${api}/api/video/${VIDEO_ID}/chat`).then((r) => r.json());
    expect(chat).toMatchObject({ state: 'none', messages: [] });
    const noChat = await fetch(`${api}/api/download/${VIDEO_ID}/chat`);
    expect(noChat.status).toBe(404);
    expect((await noChat.json()).code).toBe('chat_not_found');

    await youtubeSays({ liveStatus: 'was_live', releaseTimestamp: now });
    const again = await archive(`https://www.youtube.com/watch?v=${VIDEO_ID}`);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already|ended/);
  });

  it('asks yt-dlp for a new playlist URL when the signed one stops answering, and misses nothing (while its chat fails)', async () => {
    fixture = await startHlsFixture({ seconds: 20 });
    const now = Math.floor(Date.now() / 1000);
    kura = spawnKura(['serve'], env(), cwd);
    const api = (await kura.waitForLog((l) => l.msg === 'kura api listening')).url as string;
    const encoded = fixture.start();
    await fixture.onAir();
    // yt-dlp cannot read this stream's chat: the video is recorded all the same
    const chat = { error: 'Unable to download live chat: HTTP Error 403: Forbidden' };
    await youtubeSays({ liveStatus: 'is_live', releaseTimestamp: now, hlsUrl: `${fixture.url}?token=first`, chat });
    expect((await archive(`https://www.youtube.com/watch?v=${VIDEO_ID}`)).code).toBe(0);
    await fixture.seen(SEGMENT_REQUEST, 5);
    // the first URL is revoked, as YouTube's expire: yt-dlp now hands out another one
    await youtubeSays({ liveStatus: 'is_live', releaseTimestamp: now, hlsUrl: `${fixture.url}?token=second`, chat });
    fixture.fail = (_path, rawUrl) => (rawUrl.includes('token=first') ? 403 : null);
    await encoded;
    const done = await waitForRecord(db.url, VIDEO_ID, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${VIDEO_ID}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    expect((await fetch(`${api}/api/video/${VIDEO_ID}/chat`).then((r) => r.json())).state).toBe('failed');
    const log = await fetch(`${api}/api/download/${VIDEO_ID}/log`).then((r) => r.text());
    // the log is public: the refreshed URL is named, its signed query is not
    expect(log).toMatch(/playlist URL refreshed \(it answered 403\): http:\/\/127\.0\.0\.1:\d+\/\S*\?token=\*\*\*/);
    expect(log).not.toMatch(/token=(first|second)/);
    expect((await probe(path.join(cwd, 'data', 'archive', 'archives', VIDEO_ID, `${VIDEO_ID}.mp4`))).frames).toBe(600);
  });

  it('refuses ended streams and ordinary videos at submission, with the reason', async () => {
    await youtubeSays({ liveStatus: 'was_live' });
    const ended = await archive('https://www.youtube.com/live/aqz-KE-bpKQ');
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain('This livestream has already ended and YouTube has processed its video.');
    await youtubeSays({ liveStatus: 'not_live' });
    const video = await archive('https://m.youtube.com/watch?v=aqz-KE-bpKQ');
    expect(video.stderr).toContain('This video is not a livestream.');
    const shorts = await archive('https://www.youtube.com/shorts/aqz-KE-bpKQ');
    expect(shorts.stderr).toContain('Shorts are not livestreams');
    expect((await db.pool.query('select count(*)::int as n from livestreams')).rows[0].n).toBe(0);
  });
});
