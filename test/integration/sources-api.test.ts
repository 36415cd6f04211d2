import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';

// /api/validate and /api/qualities against real sources: HLS playlists served on loopback, and
// YouTube through the yt-dlp STAND-IN (its answers are set through $YTDLP_STAND_IN_STATE).
let kura: TestApp;
let fixture: HlsFixture;
let stateFile: string;
beforeAll(async () => {
  kura = await startTestApp();
  fixture = await startHlsFixture({ seconds: 1 });
  const live = path.join(fixture.dir, 'live');
  await writeFile(path.join(live, 'index.m3u8'), ['#EXTM3U', '#EXT-X-TARGETDURATION:1', '#EXTINF:1.0,', 'seg00000.ts', ''].join('\n'));
  await writeFile(
    path.join(live, 'master.m3u8'),
    [
      '#EXTM3U',
      '#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360',
      '360.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=6000000,RESOLUTION=1920x1080',
      '1080.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720',
      '720.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720',
      '720-low.m3u8',
      '',
    ].join('\n'),
  );
  stateFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'kura-ytdlp-')), 'state.json');
  process.env.YTDLP_STAND_IN_STATE = stateFile;
});
afterAll(async () => {
  delete process.env.YTDLP_STAND_IN_STATE;
  await fixture.close();
  await kura.close();
});

const get = (route: string, url: string) => kura.app.inject({ url: `/api/${route}?url=${encodeURIComponent(url)}` });
const youtubeSays = (state: object) => writeFile(stateFile, JSON.stringify(state));

describe('validating a URL before submitting it', () => {
  it('accepts an HLS playlist, with its host as the channel', async () => {
    expect((await get('validate', fixture.url)).json()).toEqual({ valid: true, channelId: '127.0.0.1', platform: 'hls' });
  });

  it('accepts an upcoming YouTube stream with its channel, and refuses ended ones and videos with the reason', async () => {
    await youtubeSays({ liveStatus: 'is_upcoming', releaseTimestamp: 1795003200 });
    expect((await get('validate', 'https://youtu.be/dQw4w9WgXcQ')).json()).toEqual({
      valid: true,
      channelId: 'UCfixture0000000000000001',
      platform: 'youtube',
      title: '【歌枠】Karaoke night 🎤 #42',
      channelName: 'Fixture Ch. 試験',
      thumbnail: expect.stringMatching(/^https:\/\//),
      scheduledStart: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    await youtubeSays({ liveStatus: 'was_live' });
    expect((await get('validate', 'https://www.youtube.com/watch?v=aqz-KE-bpKQ')).json()).toEqual({
      valid: false,
      channelId: null,
      reason: 'This livestream has already ended and YouTube has processed its video.',
    });
    expect((await get('validate', 'https://www.youtube.com/@somechannel')).json()).toMatchObject({ valid: false, reason: expect.stringMatching(/a channel/) });
    expect((await get('validate', 'https://example.com/video.mp4')).json()).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/yt-dlp opens no site at this URL/),
    });
  });

  it('remembers an answer briefly, so typing does not run yt-dlp for every keystroke', async () => {
    await youtubeSays({ liveStatus: 'is_upcoming' });
    const url = 'https://www.youtube.com/watch?v=AAAAAAAAAAA';
    expect((await get('validate', url)).json().valid).toBe(true);
    await youtubeSays({ liveStatus: 'not_live' });
    expect((await get('validate', url)).json().valid).toBe(true); // the same answer for a minute
  });

  it('answers 400 for a missing or oversized url parameter', async () => {
    expect((await kura.app.inject({ url: '/api/validate' })).statusCode).toBe(400);
    expect((await get('validate', `https://example.com/${'a'.repeat(2100)}.m3u8`)).statusCode).toBe(400);
  });
});

describe('listing the qualities of a stream', () => {
  it('lists one quality per height of a master playlist, best first', async () => {
    const response = await get('qualities', fixture.url.replace('index.m3u8', 'master.m3u8'));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([
      { code: '1080p', resolution: '1920x1080', best: true },
      { code: '720p', resolution: '1280x720', best: false },
      { code: '360p', resolution: '640x360', best: false },
    ]);
  });

  it('has one quality for a media playlist, and a YouTube stream’s renditions once live', async () => {
    expect((await get('qualities', fixture.url)).json()).toEqual([{ code: 'best', resolution: 'as the source sends it', best: true }]);
    await youtubeSays({ liveStatus: 'is_live', hlsUrl: fixture.url });
    expect((await get('qualities', 'https://youtu.be/BBBBBBBBBBB')).json()).toEqual([{ code: '180p', resolution: '320x180', best: true }]);
    await youtubeSays({ liveStatus: 'is_upcoming' });
    expect((await get('qualities', 'https://youtu.be/CCCCCCCCCCC')).json()).toEqual([{ code: 'best', resolution: 'the best offered once live', best: true }]);
  });

  it('answers 400 with the reason when the URL is no stream', async () => {
    const missing = await get('qualities', fixture.url.replace('index.m3u8', 'nothing.m3u8'));
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'invalid_source', detail: expect.stringMatching(/cannot be read.*404/) });
    expect((await get('qualities', 'https://example.com/page')).json()).toMatchObject({ code: 'invalid_source' });
  });
});
