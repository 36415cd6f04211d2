import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runKura } from '../support/cli.js';
import { probe } from '../support/hls-fixture.js';
import { failuresCounterFile, liveFromStart, ytDlpStandIn } from '../support/yt-dlp-state.js';
import { useYouTubeHarness } from '../support/youtube-harness.js';
import { fetchedFragment, recordedVideoItag, youtubeArchive } from '../support/youtube-archive.js';
import { makeFragments } from '../support/youtube-fragments.js';

// A streamer's encoder that stalls for minutes while yt-dlp has a bad day, end to end (issue 48,
// decision 0088): a real `kura serve`, ffmpeg and PostgreSQL; the googlevideo STAND-IN's head stops
// growing, and the yt-dlp STAND-IN is rate-limited, then fails, then says live
// (docs/research/youtube-live-contract.md §7). A file of its own: its two minutes run beside others.
const VIDEO_ID = 'stallE2eTst';
const URL = `https://www.youtube.com/watch?v=${VIDEO_ID}`;
const y = useYouTubeHarness('kura-youtube-stall-');

const archive = youtubeArchive(y, VIDEO_ID);

describe('a YouTube stream whose encoder stalls (googlevideo and yt-dlp stand-ins)', () => {
  it('a head stalled for two minutes, with a 429 and a failed yt-dlp run meanwhile: one complete archive', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 20, targetSeconds: 1, fps: 10 });
    y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo: 2 });
    const live = liveFromStart(y.googlevideo, VIDEO_ID, 2) as { videos: Record<string, object> };
    await y.says(live);
    const api = await y.serve();
    expect((await runKura(['archive', URL], y.env(), y.cwd)).code).toBe(0);
    // the streamer's encoder reconnects: the head stops at 6 for two minutes; yt-dlp is rate-limited, then fails, then says live
    await y.googlevideo.seen(fetchedFragment(recordedVideoItag(material), 6), 1);
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
    await archive.endsAfter(material.fragmentCount - 1, material, 130);
    const { details } = await archive.finished(api);
    expect(details.capture.gaps).toEqual([]);
    expect(details.capture.complete).toBe(true);
    expect((await probe(archive.file())).frames).toBe(material.seconds * 10);
  }, 300_000);
});
