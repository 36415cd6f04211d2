import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { runKura } from '../support/cli.js';
import { liveFromStart } from '../support/yt-dlp-state.js';
import { useYouTubeHarness } from '../support/youtube-harness.js';
import { makeFragments, type FragmentMaterial } from '../support/youtube-fragments.js';
import { probe } from '../support/long-archive.js';

// Watching a YouTube stream recorded fragment by fragment while it is recorded: real `kura serve`,
// ffmpeg-made fragments served by the googlevideo STAND-IN, the yt-dlp STAND-IN listing them, and
// Chromium playing `live.m3u8` (the video with its audio as a rendition) from fragment 0.
const VIDEO_ID = 'fragLiveE2e';
const y = useYouTubeHarness('kura-live-fragments-');

/** Puts the broadcast on air, begun `startedSecondsAgo` (fragment `lost` never served), and starts Kura recording it; resolves with the api's URL. */
async function recordOnAir(material: FragmentMaterial, startedSecondsAgo: number, lost?: number): Promise<string> {
  y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo });
  if (lost !== undefined) y.googlevideo.lose(VIDEO_ID, lost);
  await y.says(liveFromStart(y.googlevideo, VIDEO_ID, startedSecondsAgo));
  const api = await y.serve();
  const archived = await runKura(['archive', `https://www.youtube.com/watch?v=${VIDEO_ID}`], y.env(), y.cwd);
  expect(archived.code, archived.stderr).toBe(0);
  return api;
}

/** The answer to `url` once it is no longer 409 capture_not_started (the first fragments are recorded). */
async function onceStarted(url: string): Promise<Response> {
  let response: Response | null = null;
  await expect
    .poll(
      async () => {
        response = await fetch(url);
        return response.status === 409 ? ((await response.clone().json()) as { code: string }).code : response.status;
      },
      { timeout: 60_000, interval: 500 },
    )
    .not.toBe('capture_not_started');
  return response as unknown as Response;
}

/** A clip of the record, saved and probed: its headers, its streams' codecs and its length. */
async function clipOf(api: string, query: string): Promise<{ headers: Headers; codecs: string[]; seconds: number }> {
  const response = await fetch(`${api}/api/download/${VIDEO_ID}/clip?${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'kura-live-clip-')), 'clip.mp4');
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  return { headers: response.headers, ...(await probe(file)) };
}

/** Resolves once the live video playlist lists fragment `sq`: Kura has caught up with a head that was there when it began. */
async function caughtUpTo(api: string, sq: number): Promise<void> {
  const newest = async () => {
    const playlist = await (await fetch(`${api}/api/video/${VIDEO_ID}/live/video.m3u8`)).text();
    return Math.max(-1, ...[...playlist.matchAll(/^1\/(\d+)\./gm)].map((m) => Number(m[1])));
  };
  await expect.poll(newest, { timeout: 60_000, interval: 500 }).toBeGreaterThanOrEqual(sq);
}

describe.each([
  {
    codecs: 'h264',
    family: 'H.264 + AAC (fMP4): hls.js',
    lost: undefined,
    ext: 'm4s',
    init: 'init-{track}.mp4',
    initStarts: 'ftyp',
    mediaStarts: ['moof', 'styp', 'sidx'],
  },
  // fragment 16 (32–34 s, just past the head when Kura first looks) is lost: the page’s own player jumps its hole (hls.js skips #EXT-X-GAP by itself)
  {
    codecs: 'vp9',
    family: 'VP9 + Opus (WebM): the page’s own player',
    lost: 16,
    ext: 'webm',
    init: 'init-{track}.webm',
    initStarts: '1a45dfa3',
    mediaStarts: ['1f43b675'],
  },
] as const)(
  'watching a YouTube stream recorded from its first fragment, while it is recorded: $family',
  ({ codecs, lost, ext, init, initStarts, mediaStarts }) => {
    /** A file's first four bytes as a box type (MP4) or an EBML ID in hex (WebM). */
    const startOf = (bytes: Buffer) => (ext === 'webm' ? bytes.subarray(0, 4).toString('hex') : bytes.subarray(4, 8).toString('latin1'));

    it('live.m3u8 names a video and an audio playlist, and Chromium plays both from fragment 0 of a stream begun a while ago', async () => {
      const material = await makeFragments({ codecs, seconds: 120, targetSeconds: 2, fps: 10 });
      const [, big, audio] = material.representations;
      const api = await recordOnAir(material, 30, lost);
      const live = `${api}/api/video/${VIDEO_ID}/live.m3u8`;

      const master = await onceStarted(live);
      expect(master.status).toBe(200);
      const text = await master.text();
      expect(text).toContain('#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="audio",DEFAULT=YES,AUTOSELECT=YES,URI="live/audio.m3u8"');
      expect(text).toMatch(new RegExp(`^#EXT-X-STREAM-INF:BANDWIDTH=\\d+,CODECS="${big?.codecs},${audio?.codecs}",AUDIO="audio"\nlive/video\\.m3u8$`, 'm'));
      for (const [track, first] of [
        ['video', 0],
        ['audio', 1],
      ] as const) {
        const section = init.replace('{track}', track);
        const playlist = await (await fetch(`${api}/api/video/${VIDEO_ID}/live/${track}.m3u8`)).text();
        expect(playlist).toContain('#EXT-X-MEDIA-SEQUENCE:0\n');
        expect(playlist).toContain(`#EXT-X-MAP:URI="1/${section}"\n#EXTINF:2.000000,\n1/${first}.${ext}\n`);
        const initBytes = Buffer.from(await (await fetch(`${api}/api/video/${VIDEO_ID}/live/1/${section}`)).arrayBuffer());
        expect(startOf(initBytes)).toBe(initStarts);
        const segment = Buffer.from(await (await fetch(`${api}/api/video/${VIDEO_ID}/live/1/${first}.${ext}`)).arrayBuffer());
        expect(mediaStarts).toContain(startOf(segment));
      }
      expect(y.googlevideo.requests.some((r) => r.itag === big?.itag && r.sq === 0)).toBe(true);
      expect(y.googlevideo.requests.some((r) => r.itag === audio?.itag && r.sq === 0)).toBe(true);

      // the page opens once Kura has recorded up to where the broadcast was when Kura found it: opened
      // while Kura still catches up (a loaded machine), its edge moves on faster than it plays
      await caughtUpTo(api, 14);
      // a clip of what is recorded so far: the video and the audio track joined, from fragment 0
      const clip = await clipOf(api, 'start=0&end=4');
      expect([clip.headers.get('x-kura-clip-start'), clip.headers.get('x-kura-clip-duration'), clip.headers.get('x-kura-clip-lost')]).toEqual([
        '0.000',
        '4.000',
        null,
      ]);
      expect(clip.codecs).toEqual(codecs === 'h264' ? ['h264', 'aac'] : ['vp9', 'opus']);
      expect(Math.abs(clip.seconds - 4)).toBeLessThan(0.3);

      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        const fetched: string[] = [];
        page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
        await page.goto(`${api}/archive/${VIDEO_ID}`);
        const video = page.locator('[data-testid=player][data-mode=live]');
        // it starts at the live edge, as YouTube does; a viewer rewinds to the very start of a stream begun 30 s before Kura found it
        await video.evaluate((v: HTMLVideoElement) => {
          v.muted = true;
          return v.play().catch(() => undefined);
        });
        // played again should a loaded machine leave it paused (a media element's load may undo an early play())
        const playing = () =>
          video.evaluate((v: HTMLVideoElement) => {
            if (v.paused) void v.play().catch(() => undefined);
            return v.currentTime;
          });
        await expect.poll(playing, { timeout: 30_000 }).toBeGreaterThan(20);
        await page.getByTestId('live-badge').waitFor({ timeout: 30_000 });
        if (lost !== undefined) {
          // live, it plays on past the lost fragment once Kura has given it up
          await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 60_000 }).toBeGreaterThan((lost + 1) * 2 + 1);
          // a clip across it keeps the hole in its timeline, as the archive will, and says where it is
          const clip = await clipOf(api, `start=${lost * 2 - 2}&end=${lost * 2 + 4}`);
          expect(clip.headers.get('x-kura-clip-lost')).toBe('2.000+2.000');
          expect(Math.abs(clip.seconds - 6)).toBeLessThan(0.3);
        }
        const played = () =>
          video.evaluate((v: HTMLVideoElement) => ({
            at: v.currentTime,
            audio: (v as unknown as { webkitAudioDecodedByteCount: number }).webkitAudioDecodedByteCount,
          }));
        const before = await played();
        const seekable = await video.evaluate((v: HTMLVideoElement) => {
          v.currentTime = 0;
          return v.seekable.start(0);
        });
        expect(seekable).toBeLessThan(0.5);
        await expect.poll(async () => (await played()).at, { timeout: 20_000 }).toBeGreaterThan(2);
        const after = await played();
        expect(after.at).toBeLessThan(15); // from the start, not from the live edge (30 s and more)
        expect(after.audio).toBeGreaterThan(before.audio); // the audio rendition plays beside the video, from the start too
        expect(fetched).toContain(`/api/video/${VIDEO_ID}/live/audio.m3u8`);
        expect(fetched).toContain(`/api/video/${VIDEO_ID}/live/1/0.${ext}`);
        expect(fetched).toContain(`/api/video/${VIDEO_ID}/live/1/1.${ext}`);
        expect(await video.evaluate((v: HTMLVideoElement) => v.error?.message ?? null)).toBeNull();
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    }, 180_000);
  },
);
