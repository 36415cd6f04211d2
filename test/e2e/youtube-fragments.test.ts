import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { runKura } from '../support/cli.js';
import { probe } from '../support/hls-fixture.js';
import { waitForRecord } from '../support/records.js';
import { liveFromStart } from '../support/yt-dlp-state.js';
import { useYouTubeHarness } from '../support/youtube-harness.js';
import { makeFragments, type FragmentMaterial } from '../support/youtube-fragments.js';

// YouTube recorded from its first fragment, end to end: real `kura serve`, real ffmpeg and
// PostgreSQL, a STAND-IN for YouTube's fragment server (test/support/googlevideo-stand-in.ts)
// serving ffmpeg-made fragments by sequence number, and the yt-dlp STAND-IN listing them as
// `yt-dlp -J --live-from-start` does.
const VIDEO_ID = 'fragE2eTest';
const y = useYouTubeHarness('kura-fragments-');

const archiveFile = () => path.join(y.cwd, 'data', 'archive', 'archives', VIDEO_ID, `${VIDEO_ID}.mp4`);
const isVideoFragment = (material: FragmentMaterial, itag: number) => (r: { itag: number | null; sq: number | null; status: number }) =>
  r.itag === itag && r.sq !== null && r.status === 200 && r.sq < material.fragmentCount;

/** The codecs and size of the archive's streams, as ffprobe reads them. */
async function streamsOf(file: string): Promise<Array<{ codec_type: string; codec_name: string; width?: number; height?: number }>> {
  const child = spawn('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name,width,height', '-of', 'json', file]);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => child.on('close', resolve));
  return (JSON.parse(out) as { streams: Array<{ codec_type: string; codec_name: string; width?: number; height?: number }> }).streams;
}

/** Puts the broadcast on air and tells yt-dlp's stand-in it is live, with its adaptive formats. */
async function onAir(material: FragmentMaterial, startedSecondsAgo: number): Promise<void> {
  y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo });
  await y.says(liveFromStart(y.googlevideo, VIDEO_ID, startedSecondsAgo));
}
/** Once Kura has the broadcast's last fragment, YouTube says it is over. */
async function endsAfterLastFragment(material: FragmentMaterial, itag: number): Promise<void> {
  const fetched = y.googlevideo.seen((r) => r.itag === itag && r.sq === material.fragmentCount - 1 && r.status === 200, 1);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('Kura did not fetch the last fragment in 90 s')), 90_000)));
  await Promise.race([fetched, late]).finally(() => clearTimeout(timer));
  await y.says({ liveStatus: 'was_live', videos: { [VIDEO_ID]: { liveStatus: 'was_live' } } });
}

describe('a YouTube stream recorded from its first fragment (googlevideo and yt-dlp stand-ins)', () => {
  it('found ten minutes after it began, through a kill -9 and a fragment lost at the source: from 0 s, every frame but the lost fragment’s, at the best quality offered', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 610, targetSeconds: 2, fps: 10 });
    const [small, big] = material.representations;
    await onAir(material, 600);
    y.googlevideo.lose(VIDEO_ID, 7); // lost at the server, both tracks: one gap of 2 s
    await y.serve();
    expect((await runKura(['archive', `https://www.youtube.com/watch?v=${VIDEO_ID}`], y.env(), y.cwd)).code).toBe(0);

    // mid-way through the ten minutes it catches up on, the worker dies without a word, and comes back
    await y.googlevideo.seen(isVideoFragment(material, big?.itag ?? 0), 150);
    await y.kill();
    const api = await y.serve();
    await endsAfterLastFragment(material, big?.itag ?? 0);
    const done = await waitForRecord(y.db.url, VIDEO_ID, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done.status, done.failure_reason ?? '').toBe('finished');

    // the whole broadcast, from 0 s: every frame but those of the lost fragment, and the duration of all of it
    const { duration, frames } = await probe(archiveFile());
    expect(frames).toBe(material.seconds * 10 - 2 * 10);
    expect(duration).toBeGreaterThan(material.seconds - 1);
    expect(duration).toBeLessThan(material.seconds + 1);
    // the tallest video offered (240p, not the 144p one), with its audio
    expect(await streamsOf(archiveFile())).toEqual([
      expect.objectContaining({ codec_type: 'video', codec_name: 'h264', width: big?.width, height: big?.height }),
      expect.objectContaining({ codec_type: 'audio', codec_name: 'aac' }),
    ]);
    expect(y.googlevideo.requests.some((r) => r.itag === small?.itag)).toBe(false);
    const details = await fetch(`${api}/api/video/${VIDEO_ID}`).then((r) => r.json());
    expect(details.capture.complete).toBe(false);
    expect(details.capture.gaps).toEqual([expect.objectContaining({ firstSequence: 14, lastSequence: 15, seconds: 2 })]);
    const log = await fetch(`${api}/api/download/${VIDEO_ID}/log`).then((r) => r.text());
    expect(log).toMatch(/recording fragments from fragment 0: video 133 \(avc1/);
    expect(log).toMatch(/resuming at sequence \d+/);
  }, 240_000);

  it('archives VP9 video with Opus audio as an MP4 that Chromium plays on the archive page', async () => {
    const material = await makeFragments({ codecs: 'vp9', seconds: 16, targetSeconds: 2 });
    const [, big] = material.representations;
    await onAir(material, 12);
    const api = await y.serve();
    expect((await runKura(['archive', `https://www.youtube.com/watch?v=${VIDEO_ID}`], y.env(), y.cwd)).code).toBe(0);
    await endsAfterLastFragment(material, big?.itag ?? 0).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await fetch(`${api}/api/download/${VIDEO_ID}/log`).then((r) => r.text())}`);
    });
    const done = await waitForRecord(y.db.url, VIDEO_ID, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    expect(await streamsOf(archiveFile())).toEqual([
      expect.objectContaining({ codec_type: 'video', codec_name: 'vp9', height: big?.height }),
      expect.objectContaining({ codec_type: 'audio', codec_name: 'opus' }),
    ]);
    expect((await probe(archiveFile())).frames).toBe(16 * 30);

    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${api}/archive/${VIDEO_ID}`);
      const played = await page.getByTestId('player').evaluate(
        (video: HTMLVideoElement) =>
          new Promise<{ width: number; at: number }>((resolve, reject) => {
            video.muted = true;
            video.addEventListener('error', () => reject(new Error(`the player failed: ${video.error?.message ?? video.error?.code}`)));
            video.addEventListener('timeupdate', () => video.currentTime > 1 && resolve({ width: video.videoWidth, at: video.currentTime }));
            void video.play().catch(reject);
          }),
      );
      expect(played.width).toBe(big?.width);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
