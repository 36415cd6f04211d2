import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKura } from '../support/cli.js';
import { sqAgo } from '../support/googlevideo-stand-in.js';
import { probe } from '../support/hls-fixture.js';
import { waitForRecord } from '../support/records.js';
import { failuresCounterFile, liveFromStart, postLive, ytDlpStandIn } from '../support/yt-dlp-state.js';
import { useYouTubeHarness } from '../support/youtube-harness.js';
import { makeFragments, type FragmentMaterial } from '../support/youtube-fragments.js';

// YouTube on its bad days, end to end (issue 48, decision 0088): a real `kura serve`, ffmpeg and
// PostgreSQL; the googlevideo STAND-IN stalls, forgets old fragments, expires URLs and throttles
// bodies, and the yt-dlp STAND-IN fails, rate-limits and answers slowly, as YouTube and yt-dlp do
// (docs/research/youtube-live-contract.md §7).
const VIDEO_ID = 'badDaysE2eT';
const URL = `https://www.youtube.com/watch?v=${VIDEO_ID}`;
const y = useYouTubeHarness('kura-youtube-bad-days-');

const archiveFile = () => path.join(y.cwd, 'data', 'archive', 'archives', VIDEO_ID, `${VIDEO_ID}.mp4`);
/** The bigger video's itag (the one Kura records). */
const videoItag = (material: FragmentMaterial) => material.representations[1]?.itag ?? 0;
const fetched = (itag: number, sq: number) => (r: { itag: number | null; sq: number | null; status: number }) =>
  r.itag === itag && r.sq === sq && r.status === 200;

/** Once Kura fetched the broadcast's last fragment, it ends, and yt-dlp says post_live. */
async function endsAfter(lastSq: number, material: FragmentMaterial, startedSecondsAgo: number): Promise<void> {
  await y.googlevideo.seen(fetched(videoItag(material), lastSq), 1);
  y.googlevideo.end(VIDEO_ID);
  await y.says(postLive(y.googlevideo, VIDEO_ID, startedSecondsAgo));
}

/** The record once finished, with its capture's details from the API. */
async function finished(api: string) {
  const done = await waitForRecord(y.db.url, VIDEO_ID, (r) => r.status === 'finished' || r.status === 'failed', 240_000);
  const log = await fetch(`${api}/api/download/${VIDEO_ID}/log`).then((r) => r.text());
  expect(done.status, `${done.failure_reason ?? ''}\n${log}`).toBe('finished');
  const details = await fetch(`${api}/api/video/${VIDEO_ID}`).then((r) => r.json());
  return { details, log };
}

describe('YouTube as it really behaves (googlevideo and yt-dlp stand-ins)', () => {
  it('a head stalled for two minutes, with a 429 and a failed yt-dlp run meanwhile: one complete archive', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 20, targetSeconds: 1, fps: 10 });
    y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo: 2 });
    const live = liveFromStart(y.googlevideo, VIDEO_ID, 2) as { videos: Record<string, object> };
    await y.says(live);
    const api = await y.serve();
    expect((await runKura(['archive', URL], y.env(), y.cwd)).code).toBe(0);
    // the streamer's encoder reconnects: the head stops at 6 for two minutes; yt-dlp is rate-limited, then fails, then says live
    await y.googlevideo.seen(fetched(videoItag(material), 6), 1);
    y.googlevideo.stall(VIDEO_ID);
    const stalledAt = Date.now();
    await y.says({ ...live, videos: { [VIDEO_ID]: { ...live.videos[VIDEO_ID], failures: { count: 1, kind: 'rate_limited' } } } });
    const log = () => fetch(`${api}/api/logz?id=${VIDEO_ID}`).then((r) => r.text());
    await expect.poll(log, { timeout: 60_000 }).toMatch(/rate-limits Kura[^\n]*; waiting/);
    await rm(failuresCounterFile(ytDlpStandIn(y.cwd).file, VIDEO_ID)); // the next failure counts from none
    await y.says({ ...live, videos: { [VIDEO_ID]: { ...live.videos[VIDEO_ID], failures: { count: 1, kind: 'network' } } } });
    await expect.poll(log, { timeout: 60_000 }).toMatch(/the source says: Failed to extract any player response[^\n]*; waiting/);
    await y.says(live);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 120_000 - (Date.now() - stalledAt)))); // the stall's length is the point
    y.googlevideo.resume(VIDEO_ID);
    await endsAfter(material.fragmentCount - 1, material, 130);
    const { details } = await finished(api);
    expect(details.capture.gaps).toEqual([]);
    expect(details.capture.complete).toBe(true);
    expect((await probe(archiveFile())).frames).toBe(material.seconds * 10);
  }, 300_000);

  it('a stream found six days after it began: starts at the first fragment YouTube still serves, one gap before it, then every fragment', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 12, targetSeconds: 1, fps: 10 });
    const sixDays = 6 * 86_400;
    // this YouTube keeps the last 8 fragments, not the 120 h Kura takes it for at first
    const firstSq = sqAgo(sixDays, 1) - 8;
    y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo: sixDays, retentionSeconds: 8, firstSq });
    await y.says(liveFromStart(y.googlevideo, VIDEO_ID, sixDays));
    const api = await y.serve();
    expect((await runKura(['archive', URL], y.env(), y.cwd)).code).toBe(0);
    // at its end the video is processed at once (a post_live look would list six days of fragments)
    await y.googlevideo.seen(fetched(videoItag(material), firstSq + material.fragmentCount - 1), 1);
    y.googlevideo.process(VIDEO_ID);
    await y.says({ videos: { [VIDEO_ID]: { liveStatus: 'was_live' } } });
    const { details } = await finished(api);
    expect(details.capture.gaps).toEqual([
      expect.objectContaining({ firstSequence: 0, reason: expect.stringMatching(/^the broadcast began 144 h before Kura found it/) }),
    ]);
    const first = (details.capture.gaps[0].lastSequence + 1) / 2;
    // every fragment from the first served to the end, and none fetched below it
    expect((await probe(archiveFile())).frames).toBe((firstSq + material.fragmentCount - first) * 10);
    expect(y.googlevideo.requests.filter((r) => r.method === 'GET' && r.sq !== null && r.sq < first)).toEqual([]);
  }, 180_000);

  it('URLs that expire while several fetches are in flight and yt-dlp answers slowly: no gap', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 20, targetSeconds: 1, fps: 10 });
    // URLs live 3 s; eight fetches at once on a slow link; yt-dlp takes 2 s to answer
    y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo: 12, expireInSeconds: 3 });
    y.googlevideo.throttle = { bytesPerSecond: 60_000 };
    const live = liveFromStart(y.googlevideo, VIDEO_ID, 12) as { videos: Record<string, object> };
    await y.says({ ...live, videos: { [VIDEO_ID]: { ...live.videos[VIDEO_ID], delayMs: 2000 } } });
    const api = await y.serve();
    expect((await runKura(['archive', URL], y.env(), y.cwd)).code).toBe(0);
    await endsAfter(material.fragmentCount - 1, material, 32);
    const { details, log } = await finished(api);
    expect(details.capture.gaps).toEqual([]);
    expect(log).toMatch(/fragment URLs renewed/);
    expect(y.googlevideo.requests.filter((r) => r.status === 403).length).toBeGreaterThan(0);
    expect((await probe(archiveFile())).frames).toBe(material.seconds * 10);
  }, 180_000);

  it('a slow link with fragments that take longer than the request limit to arrive: no gap', async () => {
    // about 2 Mbit/s of 2-s fragments (500 kB each), on a link of 40 kB/s: about 12 s a fragment
    const material = await makeFragments({ codecs: 'h264', seconds: 8, targetSeconds: 2, fps: 10, video: { width: 640, height: 360, bitrate: 2_000_000 } });
    y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo: 8 });
    y.googlevideo.throttle = { bytesPerSecond: 40_000 };
    await y.says(liveFromStart(y.googlevideo, VIDEO_ID, 8));
    const api = await y.serve();
    expect((await runKura(['archive', URL], y.env(), y.cwd)).code).toBe(0);
    await endsAfter(material.fragmentCount - 1, material, 8);
    const { details } = await finished(api);
    expect(details.capture.gaps).toEqual([]);
    expect((await probe(archiveFile())).frames).toBe(material.seconds * 10);
  }, 240_000);
});
