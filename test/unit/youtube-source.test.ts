import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createYouTubeSource, type YtDlp } from '../../src/adapters/sources/youtube-source.js';
import { accessOf, readYouTubeVideo } from '../../src/adapters/sources/youtube-video.js';
import { troubleInWords, YtDlpFailure } from '../../src/adapters/ytdlp/ytdlp-trouble.js';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';

// yt-dlp outputs kept as fixtures (test/fixtures/yt-dlp/README.md says how they were made).
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(readPackageInfo().root, 'test', 'fixtures', 'yt-dlp', `${name}.json`), 'utf8'));
/** yt-dlp's answer of a run without cookies and without warnings. */
const answer = (json: unknown) => ({ json, warnings: [], withCookies: false });
const answering =
  (name: string): YtDlp =>
  async () =>
    answer(fixture(name));
/** A run that fails as yt-dlp's runner reports it: its words, and the trouble they tell. */
const failing =
  (message: string): YtDlp =>
  async () => {
    throw new YtDlpFailure(troubleInWords(message), message);
  };
const URL_OF_FIXTURE = 'https://youtu.be/dQw4w9WgXcQ';

describe('reading yt-dlp output', () => {
  it('takes the details of an upcoming stream, with the best thumbnail', () => {
    expect(readYouTubeVideo(fixture('upcoming'))).toEqual({
      liveStatus: 'is_upcoming',
      details: {
        title: '【歌枠】Karaoke night 🎤 #42',
        channelName: 'Fixture Ch. 試験',
        channelId: 'UCfixture0000000000000001',
        scheduledStart: new Date(1795003200 * 1000),
        thumbnailUrl: 'https://i.ytimg.com/vi/dQw4w9WgXcQ/maxresdefault_live.jpg',
        membersOnly: false,
      },
      variants: [],
      fragments: { formats: [], fragmentSeconds: null },
      availability: 'public',
      formatCount: 0,
      warnings: [],
    });
  });

  it('marks a members-only stream by its availability, and says nothing when yt-dlp does not', () => {
    const upcoming = fixture('upcoming') as Record<string, unknown>;
    expect(readYouTubeVideo({ ...upcoming, availability: 'subscriber_only' }).details.membersOnly).toBe(true);
    expect(readYouTubeVideo({ ...upcoming, availability: undefined }).details).not.toHaveProperty('membersOnly');
  });

  it('reads no access from a members-only or sign-in video without formats (what yt-dlp prints for a refusal it was told to ignore)', () => {
    const refused = (state: string, availability: string) => readYouTubeVideo({ ...(fixture(state) as object), availability, formats: [] });
    // live or ended without a format: YouTube refused, cookies or not
    for (const cookies of [false, true]) {
      expect(accessOf(refused('live', 'subscriber_only'), cookies)).toBe('members_only');
      expect(accessOf(refused('was-live', 'subscriber_only'), cookies)).toBe('members_only');
      expect(accessOf(refused('live', 'needs_auth'), cookies)).toBe('sign_in');
    }
    // upcoming: no formats for a member either, so only the lack of any cookies tells
    expect(accessOf(refused('upcoming', 'subscriber_only'), false)).toBe('members_only');
    expect(accessOf(refused('upcoming', 'subscriber_only'), true)).toBeNull();
    // formats listed: opened; public or unknown availability: nothing to refuse
    const opened = readYouTubeVideo({ ...(fixture('live') as object), availability: 'subscriber_only' });
    expect(accessOf(opened, false)).toBeNull();
    expect(accessOf(refused('live', 'public'), false)).toBeNull();
    expect(accessOf(readYouTubeVideo({ ...(fixture('live') as object), availability: null, formats: [] }), false)).toBeNull();
  });

  it('lists the HLS renditions of a live stream, not storyboards', () => {
    const { variants } = readYouTubeVideo(fixture('live'));
    expect(variants.map((v) => v.height)).toEqual([144, 240, 360, 480, 720, 1080]);
    expect(variants.every((v) => v.url.includes('/hls_playlist/'))).toBe(true);
  });
});

describe('the YouTube source', () => {
  it('accepts an upcoming or live stream under its video id and canonical URL', async () => {
    for (const state of ['upcoming', 'live']) {
      expect(await createYouTubeSource(answering(state)).inspect(URL_OF_FIXTURE)).toMatchObject({
        kind: 'accepted',
        platform: 'youtube',
        id: 'dQw4w9WgXcQ',
        canonicalUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        details: { channelId: 'UCfixture0000000000000001' },
      });
    }
  });

  it('rejects ended streams, ordinary videos, unknown videos and non-video URLs with a reason', async () => {
    expect(await createYouTubeSource(answering('was-live')).inspect(URL_OF_FIXTURE)).toEqual({
      kind: 'rejected',
      reason: 'This livestream has already ended and YouTube has processed its video.',
    });
    expect(await createYouTubeSource(answering('not-live')).inspect(URL_OF_FIXTURE)).toEqual({ kind: 'rejected', reason: 'This video is not a livestream.' });
    expect(await createYouTubeSource(failing('Video unavailable')).inspect(URL_OF_FIXTURE)).toEqual({
      kind: 'rejected',
      reason: 'YouTube did not describe this video: Video unavailable',
    });
    expect(await createYouTubeSource(answering('live')).inspect('https://www.youtube.com/shorts/dQw4w9WgXcQ')).toMatchObject({
      kind: 'rejected',
      reason: expect.stringMatching(/Shorts/),
    });
  });

  it('maps quality codes to renditions once live', async () => {
    const source = createYouTubeSource(answering('live'));
    const itag = async (quality: string | null) => /\/itag\/(\d+)\//.exec((await source.check(URL_OF_FIXTURE, quality)).playlistUrl ?? '')?.[1];
    expect(await itag(null)).toBe('301');
    expect(await itag('best')).toBe('301');
    expect(await itag('720p')).toBe('300');
    expect(await itag('480p')).toBe('94');
    expect(await itag('100p')).toBe('91');
  });

  it('says not yet (with the schedule), ended, or what went wrong', async () => {
    expect(await createYouTubeSource(answering('upcoming')).check(URL_OF_FIXTURE, null)).toMatchObject({
      state: 'not_yet',
      details: { scheduledStart: new Date(1795003200 * 1000) },
    });
    expect((await createYouTubeSource(answering('was-live')).check(URL_OF_FIXTURE, null)).state).toBe('ended');
    expect(await createYouTubeSource(failing('HTTP Error 429')).check(URL_OF_FIXTURE, null)).toMatchObject({ state: 'unknown', trouble: 'rate_limited' });
  });

  it('refuses a live members-only stream it gets no formats of, at submission and at a check, naming the cookies setting', async () => {
    const membersOnlyLive = { ...(fixture('live') as object), availability: 'subscriber_only', formats: [] };
    const withCookies: YtDlp = Object.assign(async () => answer(membersOnlyLive), { cookies: true });
    const reason = "Members-only: the cookies no longer give access to this stream (KURA_YTDLP_COOKIES must be a current member's cookies).";
    expect(await createYouTubeSource(withCookies).inspect(URL_OF_FIXTURE)).toEqual({ kind: 'rejected', membersOnly: true, reason });
    expect(await createYouTubeSource(withCookies).check(URL_OF_FIXTURE, null)).toMatchObject({ state: 'no_access', reason });
    const ageGated = { ...(fixture('live') as object), availability: 'needs_auth', formats: [] };
    expect(await createYouTubeSource(async () => answer(ageGated)).inspect(URL_OF_FIXTURE)).toMatchObject({
      kind: 'rejected',
      signIn: true,
      reason: expect.stringMatching(/sign in/),
    });
    // a member's run: the same stream with its formats is recorded
    const opened = { ...(fixture('live') as object), availability: 'subscriber_only' };
    expect((await createYouTubeSource(Object.assign(async () => answer(opened), { cookies: true })).check(URL_OF_FIXTURE, null)).state).toBe('live');
  });

  it('recognises YouTube URLs by their form alone', () => {
    const source = createYouTubeSource(failing('never run'));
    expect(source.recognises('https://m.youtube.com/watch?v=dQw4w9WgXcQ')).toBe(true);
    expect(source.recognises('https://www.youtube.com/@channel')).toBe(true); // to be rejected with a reason
    expect(source.recognises('https://cdn.example/live.m3u8')).toBe(false);
  });
});

describe('recording YouTube from the first fragment', () => {
  const source = createYouTubeSource(async (_url, options) => answer(fixture(options?.fromStart === false ? 'live' : 'live-from-start')));
  const chosen = async (quality: string | null) => {
    const { fragments } = await source.check(URL_OF_FIXTURE, quality);
    return fragments === undefined ? undefined : `${fragments.video.id}+${fragments.audio.id}`;
  };

  it('records the tallest video offered (VP9 1440p over any HLS rendition) with AAC audio, from fragments of target_duration seconds', async () => {
    const status = await source.check(URL_OF_FIXTURE, null);
    expect(status).toMatchObject({ state: 'live', fragments: { fragmentSeconds: 5, video: { id: '308', mime: 'video/webm', codec: 'vp9', height: 1440 } } });
    expect(status.playlistUrl).toBeUndefined();
    expect(status.fragments?.audio).toMatchObject({ id: '140', mime: 'audio/mp4', codec: 'mp4a.40.2' });
    expect(status.fragments?.video.url).toMatch(/itag=308&/);
    expect(status.fragments?.video.url).not.toMatch(/[?&]sq=/);
    expect(status.fragments?.offered).toHaveLength(7);
  });

  it('takes the tallest video at or under the quality asked for, H.264 before VP9 at the same size and rate', async () => {
    expect(await chosen('1080p')).toBe('299+140');
    expect(await chosen('720p')).toBe('136+140');
    expect(await chosen('144p')).toBe('136+140'); // none that small: the smallest offered
  });

  it('falls back to the HLS rendition when no video and audio are offered from the start, and says why', async () => {
    const noAudio = readFileSync(path.join(readPackageInfo().root, 'test', 'fixtures', 'yt-dlp', 'live-from-start.json'), 'utf8');
    const videoOnly = { ...JSON.parse(noAudio), formats: JSON.parse(noAudio).formats.filter((f: { vcodec: string }) => f.vcodec !== 'none') };
    const hlsOnly = createYouTubeSource(async (_url, options) => answer(options?.fromStart === false ? fixture('live') : videoOnly));
    const status = await hlsOnly.check(URL_OF_FIXTURE, '720p');
    expect(status.fragments).toBeUndefined();
    expect(status.playlistUrl).toMatch(/\/itag\/300\//);
    expect(status.fragmentsRefused).toMatch(/no video and audio formats from the stream's start \(5 adaptive formats listed\)/);
  });

  it('is asked for the playlist alone when the fragment path failed', async () => {
    const status = await source.check(URL_OF_FIXTURE, null, { fragments: false });
    expect(status.fragments).toBeUndefined();
    expect(status.playlistUrl).toMatch(/\/itag\/301\//);
  });

  it('lists the qualities of the adaptive video formats', async () => {
    expect((await source.qualities(URL_OF_FIXTURE)).map((q) => q.code)).toEqual(['1440p', '1080p', '720p']);
  });
});
