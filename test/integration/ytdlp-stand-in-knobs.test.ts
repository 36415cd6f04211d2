import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';
import { startGooglevideo, type Googlevideo } from '../support/googlevideo-stand-in.js';
import { makeFragments } from '../support/youtube-fragments.js';
import { postLive } from '../support/yt-dlp-state.js';

// The yt-dlp STAND-IN's bad days and later states (research §7): each knob answers as yt-dlp 2026.08.19 does.

const STAND_IN = path.join(readPackageInfo().root, 'test', 'support', 'bin', 'yt-dlp-stand-in.mjs');
const run = promisify(execFile);
const HLS = 'http://127.0.0.1:9/live/index.m3u8';
const AUDIO = 'http://127.0.0.1:9/live/audio.m3u8';
let googlevideo: Googlevideo;
let dir: string;
let next = 0;

beforeAll(async () => {
  googlevideo = await startGooglevideo();
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-ytdlp-knobs-'));
});
afterAll(() => googlevideo.close());

/** A fresh video id and state file of its own, with `video` as its state. */
async function given(video: object): Promise<{ id: string; stateFile: string }> {
  const id = `knob${String(next++).padStart(7, '0')}`;
  const stateFile = path.join(dir, `${id}.json`);
  await writeFile(stateFile, JSON.stringify({ videos: { [id]: { releaseTimestamp: 1_790_000_000, hlsUrl: HLS, ...video } } }));
  return { id, stateFile };
}

/** Runs the stand-in as Kura does (node as its runtime), plus `extra`; resolves with the exit code too. */
async function ytdlp({ id, stateFile }: { id: string; stateFile: string }, extra: string[], options: { timeout?: number } = {}) {
  const args = ['--ignore-config', '--js-runtimes', `node:${process.execPath}`, '-J', '--no-playlist', ...extra, '--', `https://www.youtube.com/watch?v=${id}`];
  const env = { ...process.env, YTDLP_STAND_IN_STATE: stateFile };
  try {
    const { stdout, stderr } = await run(process.execPath, [STAND_IN, ...args], { env, ...options });
    return { code: 0, info: JSON.parse(stdout), stderr, killed: false };
  } catch (error: any) {
    return { code: error.code as number | null, info: null, stderr: error.stderr as string, killed: error.killed as boolean };
  }
}

describe('failures', () => {
  it('fail the next N runs of the video (exit 1, yt-dlp’s 429 lines), then it answers', async () => {
    const video = await given({ liveStatus: 'is_live', failures: { count: 2, kind: 'rate_limited' } });
    for (let n = 0; n < 2; n++) {
      const failed = await ytdlp(video, []);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(`WARNING: [youtube] ${video.id}: Unable to download API page: HTTP Error 429: Too Many Requests`);
      expect(failed.stderr).toContain(`ERROR: [youtube] ${video.id}: Failed to extract any player response; please report this issue on`);
    }
    const answered = await ytdlp(video, []);
    expect([answered.code, answered.info.live_status]).toEqual([0, 'is_live']);
  });

  it('of a network error print the name-resolution error, and no warnings with --no-warnings', async () => {
    const video = await given({ liveStatus: 'is_live', failures: { count: 1, kind: 'network' } });
    const failed = await ytdlp(video, ['--no-warnings']);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toBe(
      `ERROR: [youtube] ${video.id}: Failed to extract any player response; please report this issue on  https://github.com/yt-dlp/yt-dlp/issues?q= , filling out the appropriate issue template. Confirm you are on the latest version using  yt-dlp -U`,
    );
  });

  it('of a bot check fail with the sign-in reason, or, with --ignore-no-formats-error, answer a status-less JSON and warn', async () => {
    const video = await given({ liveStatus: 'is_live', failures: { count: 2, kind: 'bot_check' } });
    const failed = await ytdlp(video, []);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      `ERROR: [youtube] ${video.id}: Sign in to confirm you’re not a bot. Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp`,
    );
    const ignored = await ytdlp(video, ['--ignore-no-formats-error']);
    expect(ignored.code).toBe(0);
    expect(ignored.stderr).toContain(`WARNING: [youtube] ${video.id}: Sign in to confirm you’re not a bot.`);
    expect(ignored.info).toMatchObject({ live_status: null, formats: [] });
    expect(ignored.info).not.toHaveProperty('is_live');
  });

  it('of kind timeout hang until killed', async () => {
    const video = await given({ liveStatus: 'is_live', failures: { count: 1, kind: 'timeout' } });
    const hung = await ytdlp(video, [], { timeout: 1500 });
    expect(hung.killed).toBe(true);
    expect((await ytdlp(video, [])).code).toBe(0);
  });
});

it('waits delayMs before answering', async () => {
  const video = await given({ liveStatus: 'is_live', delayMs: 1200 });
  const asked = Date.now();
  const { code } = await ytdlp(video, []);
  expect(code).toBe(0);
  expect(Date.now() - asked).toBeGreaterThanOrEqual(1200);
});

describe('a null live status', () => {
  it('prints live_status null with no is_live/was_live, the HLS formats and no adaptive ones even with --live-from-start', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 10, targetSeconds: 1 });
    const video = await given({ liveStatus: null });
    googlevideo.broadcast(video.id, { material });
    await writeFile(video.stateFile, JSON.stringify({ videos: { [video.id]: { liveStatus: null, hlsUrl: HLS, adaptive: googlevideo.stateFor(video.id) } } }));
    const { info } = await ytdlp(video, ['--live-from-start']);
    expect(info.live_status).toBeNull();
    expect(info).not.toHaveProperty('is_live');
    expect(info.formats.map((f: any) => [f.format_id, f.protocol])).toEqual([['91', 'm3u8_native']]);
  });
});

describe('the HLS formats of a live stream', () => {
  it('are one muxed variant by default, video-only variants and an audio one when split, none (warned) when none', async () => {
    const muxed = await ytdlp(await given({ liveStatus: 'is_live' }), []);
    expect(muxed.info.formats).toMatchObject([{ format_id: '91', url: HLS, vcodec: expect.stringMatching(/^avc1/), acodec: 'mp4a.40.2' }]);
    const split = await ytdlp(await given({ liveStatus: 'is_live', hls: 'split', hlsAudioUrl: AUDIO }), []);
    const formats = split.info.formats as any[];
    expect(formats.filter((f) => f.vcodec !== 'none' && f.acodec !== 'none')).toEqual([]);
    expect(formats.filter((f) => f.vcodec === 'none').map((f) => f.url)).toEqual([AUDIO]);
    expect(formats.filter((f) => f.acodec === 'none').length).toBeGreaterThan(0);
    const none = await ytdlp(await given({ liveStatus: 'is_live', hls: 'none' }), ['--ignore-no-formats-error']);
    expect([none.code, none.info.formats]).toEqual([0, []]);
    expect(none.stderr).toContain('WARNING: No video formats found!');
  });

  it('follow hlsWithCookies when the run has --cookies', async () => {
    const cookies = path.join(dir, 'cookies.txt');
    await writeFile(cookies, '# Netscape HTTP Cookie File\n');
    const video = await given({ liveStatus: 'is_live', hls: 'split', hlsWithCookies: 'muxed' });
    expect((await ytdlp(video, ['--cookies', cookies])).info.formats.map((f: any) => f.format_id)).toEqual(['91']);
    expect((await ytdlp(video, [])).info.formats.length).toBeGreaterThan(1);
  });
});

describe('post_live', () => {
  it('lists the adaptive formats as http_dash_segments with fragments 0 … head−2 from one HEAD, with or without --live-from-start', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 10, targetSeconds: 1 });
    const video = await given({});
    googlevideo.broadcast(video.id, { material, startedSecondsAgo: 6 });
    googlevideo.end(video.id);
    const head = googlevideo.head(video.id);
    await writeFile(video.stateFile, JSON.stringify(postLive(googlevideo, video.id, 6)));
    for (const extra of [[], ['--live-from-start']]) {
      const { info } = await ytdlp(video, extra);
      expect(info).toMatchObject({ live_status: 'post_live', is_live: false, was_live: true, duration: null });
      expect(info.formats.map((f: any) => f.format_id)).toEqual(['160', '133', '140']);
      for (const format of info.formats) {
        expect(format).toMatchObject({ protocol: 'http_dash_segments', is_live: false, target_duration: 1, _client: 'web' });
        expect(format).not.toHaveProperty('is_from_start');
        expect(format.fragments.map((f: any) => Number(new URL(f.url).searchParams.get('sq')))).toEqual([...Array(head - 1).keys()]);
        expect(format.fragments[0].fragment_count).toBe(head - 1);
        expect((await fetch(format.fragments.at(-1).url)).status).toBe(200);
      }
    }
  });

  it('has no fragments once the VOD is processed (every HEAD is 403), and a was_live VOD lists ordinary https formats with its duration', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 10, targetSeconds: 1 });
    const video = await given({});
    googlevideo.broadcast(video.id, { material, startedSecondsAgo: 6 });
    googlevideo.process(video.id);
    const state = { liveStatus: 'post_live', adaptive: googlevideo.stateFor(video.id), endTimestamp: 1_790_000_600 };
    await writeFile(video.stateFile, JSON.stringify({ videos: { [video.id]: { releaseTimestamp: 1_790_000_000, ...state } } }));
    const { info } = await ytdlp(video, []);
    expect(info.duration).toBe(600);
    expect(info.formats.map((f: any) => f.fragments)).toEqual([[], [], []]);
    const vod = await ytdlp(await given({ liveStatus: 'was_live', endTimestamp: 1_790_007_432 }), []);
    expect(vod.info).toMatchObject({ live_status: 'was_live', is_live: false, was_live: true, duration: 7432 });
    expect(vod.info.formats.every((f: any) => f.protocol === 'https' && f.target_duration === undefined)).toBe(true);
  });

  it('warns of the 120-hour window for a stream begun more than 432000 s ago, unless --no-warnings', async () => {
    const video = await given({
      liveStatus: 'post_live',
      releaseTimestamp: Math.floor(Date.now() / 1000) - 6 * 86_400,
      adaptive: googlevideo.stateFor(videoOnAir()),
      headSeqnum: 10,
    });
    const { stderr } = await ytdlp(video, []);
    expect(stderr).toContain('WARNING: [youtube] Starting download from the last 120 hours of the live stream since YouTube does not have data before that.');
    expect((await ytdlp(video, ['--no-warnings'])).stderr).toBe('');
  });
});

it('warns with yt-dlp’s own words when no JavaScript runtime is given', async () => {
  const video = await given({ liveStatus: 'is_live' });
  const { stdout, stderr } = await run(process.execPath, [STAND_IN, '-J', '--', `https://www.youtube.com/watch?v=${video.id}`], {
    env: { ...process.env, YTDLP_STAND_IN_STATE: video.stateFile },
  });
  expect(JSON.parse(stdout).formats).toEqual([]);
  expect(stderr).toContain('WARNING: [youtube] No supported JavaScript runtime could be found. Only deno is enabled by default;');
});

/** A broadcast on the googlevideo stand-in (its adaptive state is what a post_live state names). */
function videoOnAir(): string {
  const id = `onAir${String(next++).padStart(6, '0')}`;
  googlevideo.broadcast(id, { material: { targetSeconds: 1, fragmentCount: 30, representations: [], codecs: 'h264', seconds: 30 } });
  return id;
}
