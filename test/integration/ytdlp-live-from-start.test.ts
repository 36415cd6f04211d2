import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';
import { startGooglevideo, type Googlevideo } from '../support/googlevideo-stand-in.js';
import { fragmentBytes, makeFragments, type FragmentMaterial } from '../support/youtube-fragments.js';

// The yt-dlp STAND-IN's `-J --live-from-start` (research §2.3, §2.5): for a live video whose state
// carries the googlevideo STAND-IN's `adaptive` description, only the adaptive formats, each with a
// base URL that fetches real fragments once `&sq=N` is added, as yt-dlp's generator does.

const STAND_IN = path.join(readPackageInfo().root, 'test', 'support', 'bin', 'yt-dlp-stand-in.mjs');
const LIVE = 'lfsLive0001';
const HLS_ONLY = 'lfsHlsOnly1';
const run = promisify(execFile);
let googlevideo: Googlevideo;
let material: FragmentMaterial;
let stateFile: string;

beforeAll(async () => {
  material = await makeFragments({ codecs: 'vp9', seconds: 6, targetSeconds: 2 });
  googlevideo = await startGooglevideo();
  googlevideo.broadcast(LIVE, { material, startedSecondsAgo: 4 });
  const hlsUrl = 'http://127.0.0.1:9/live/index.m3u8';
  const state = {
    videos: {
      [LIVE]: { liveStatus: 'is_live', releaseTimestamp: 1_790_000_000, title: 'From the start', hlsUrl, adaptive: googlevideo.stateFor(LIVE) },
      [HLS_ONLY]: { liveStatus: 'is_live', releaseTimestamp: 1_790_000_000, hlsUrl },
    },
  };
  stateFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'kura-lfs-')), 'state.json');
  await writeFile(stateFile, JSON.stringify(state));
});
afterAll(() => googlevideo.close());

/** Runs the stand-in as Kura runs yt-dlp (node as its runtime, formats errors ignored), plus `extra`. */
async function ytdlp(videoId: string, extra: string[]): Promise<{ info: any; stderr: string }> {
  const args = [
    '--js-runtimes',
    `node:${process.execPath}`,
    '-J',
    '--no-playlist',
    '--ignore-no-formats-error',
    ...extra,
    '--',
    `https://www.youtube.com/watch?v=${videoId}`,
  ];
  const { stdout, stderr } = await run(process.execPath, [STAND_IN, ...args], { env: { ...process.env, YTDLP_STAND_IN_STATE: stateFile } });
  return { info: JSON.parse(stdout), stderr };
}

describe('yt-dlp -J --live-from-start of a live video', () => {
  it('lists only the adaptive formats, as yt-dlp describes live-from-start formats, and the plain title', async () => {
    const { info } = await ytdlp(LIVE, ['--no-warnings', '--live-from-start']);
    expect(info.title).toBe('From the start');
    expect(info.formats.map((f: any) => f.format_id)).toEqual(['278', '242', '251']);
    for (const format of info.formats) {
      expect(format).toMatchObject({
        protocol: 'http_dash_segments_generator',
        is_from_start: true,
        target_duration: 2,
        _client: 'web',
        ext: 'webm',
        container: 'webm_dash',
      });
      expect(format.fragments).toMatch(/^functools\.partial\(/);
      expect(format.url).not.toMatch(/[?&]sq=/);
      expect(format._itag).toBe(format.format_id);
    }
    const [small, big, audio] = info.formats;
    expect(small).toMatchObject({ vcodec: 'vp9', acodec: 'none', width: 256, height: 144, fps: 30, format_note: '144p', tbr: 100 });
    expect(big).toMatchObject({ vcodec: 'vp9', acodec: 'none', width: 426, height: 240 });
    expect(audio).toMatchObject({ vcodec: 'none', acodec: 'opus', width: null, height: null, format_note: 'medium' });
  });

  it('hands out base URLs that fetch the real fragments with &sq=N, and the head with none', async () => {
    const { info } = await ytdlp(LIVE, ['--no-warnings', '--live-from-start']);
    for (const [index, format] of info.formats.entries()) {
      const probe = await fetch(format.url, { method: 'HEAD' });
      expect(probe.status).toBe(200);
      expect(Number(probe.headers.get('x-head-seqnum'))).toBeGreaterThanOrEqual(2);
      const response = await fetch(`${format.url}&sq=1`);
      expect(response.status).toBe(200);
      expect(Buffer.from(await response.arrayBuffer())).toEqual(await fragmentBytes(material.representations[index]!, 1));
    }
  });

  it('mints fresh URLs on each run', async () => {
    const [first, second] = [await ytdlp(LIVE, ['--live-from-start']), await ytdlp(LIVE, ['--live-from-start'])];
    expect(first.info.formats[0].url).not.toBe(second.info.formats[0].url);
  });

  it('lists the HLS format instead without it, or when --no-live-from-start comes later', async () => {
    for (const extra of [[], ['--live-from-start', '--no-live-from-start']]) {
      const { info } = await ytdlp(LIVE, ['--no-warnings', ...extra]);
      expect(info.formats.map((f: any) => [f.format_id, f.protocol])).toEqual([['91', 'm3u8_native']]);
    }
  });

  it('lists no formats and warns, as yt-dlp with --ignore-no-formats-error, when nothing can be had from the start', async () => {
    const { info, stderr } = await ytdlp(HLS_ONLY, ['--live-from-start']);
    expect(info.formats).toEqual([]);
    expect(stderr).toContain(
      'WARNING: --live-from-start is passed, but there are no formats that can be downloaded from the start. If you want to download from the current time, use --no-live-from-start',
    );
    expect((await ytdlp(HLS_ONLY, ['--live-from-start', '--no-warnings'])).stderr).toBe('');
  });

  it('fails as yt-dlp does without --ignore-no-formats-error', async () => {
    const args = ['--js-runtimes', `node:${process.execPath}`, '-J', '--live-from-start', '--', `https://www.youtube.com/watch?v=${HLS_ONLY}`];
    const failed = await run(process.execPath, [STAND_IN, ...args], { env: { ...process.env, YTDLP_STAND_IN_STATE: stateFile } }).catch((error) => error);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`ERROR: [youtube] ${HLS_ONLY}: --live-from-start is passed, but there are no formats`);
  });
});
