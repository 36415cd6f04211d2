import { describe, expect, it } from 'vitest';
import { runKura } from '../support/cli.js';
import { sqAgo } from '../support/googlevideo-stand-in.js';
import { probe } from '../support/hls-fixture.js';
import { liveFromStart } from '../support/yt-dlp-state.js';
import { useYouTubeHarness } from '../support/youtube-harness.js';
import { fetchedFragment, recordedVideoItag, youtubeArchive } from '../support/youtube-archive.js';
import { makeFragments } from '../support/youtube-fragments.js';

// YouTube on its bad days, end to end (issue 48, decision 0088): a real `kura serve`, ffmpeg and
// PostgreSQL; the googlevideo STAND-IN stalls, forgets old fragments, expires URLs and throttles
// bodies, and the yt-dlp STAND-IN fails, rate-limits and answers slowly, as YouTube and yt-dlp do
// (docs/research/youtube-live-contract.md §7).
const VIDEO_ID = 'badDaysE2eT';
const URL = `https://www.youtube.com/watch?v=${VIDEO_ID}`;
const y = useYouTubeHarness('kura-youtube-bad-days-');

const archive = youtubeArchive(y, VIDEO_ID);

describe('YouTube as it really behaves (googlevideo and yt-dlp stand-ins)', () => {
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
    await y.googlevideo.seen(fetchedFragment(recordedVideoItag(material), firstSq + material.fragmentCount - 1), 1);
    y.googlevideo.process(VIDEO_ID);
    await y.says({ videos: { [VIDEO_ID]: { liveStatus: 'was_live' } } });
    const { details } = await archive.finished(api);
    expect(details.capture.gaps).toEqual([
      expect.objectContaining({ firstSequence: 0, reason: expect.stringMatching(/^the broadcast began 144 h before Kura found it/) }),
    ]);
    const first = (details.capture.gaps[0].lastSequence + 1) / 2;
    // every fragment from the first served to the end, and none fetched below it
    expect((await probe(archive.file())).frames).toBe((firstSq + material.fragmentCount - first) * 10);
    expect(y.googlevideo.requests.filter((r) => r.method === 'GET' && r.sq !== null && r.sq < first)).toEqual([]);
  }, 180_000);

  it('URLs that YouTube withdraws while several fetches are in flight, and yt-dlp answers slowly: one renewal for them all, no gap', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 20, targetSeconds: 1, fps: 10 });
    // several fetches at once on a slow link while Kura catches up; yt-dlp takes 2 s to answer
    y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo: 12 });
    y.googlevideo.throttle = { bytesPerSecond: 60_000 };
    const live = liveFromStart(y.googlevideo, VIDEO_ID, 12) as { videos: Record<string, object> };
    await y.says({ ...live, videos: { [VIDEO_ID]: { ...live.videos[VIDEO_ID], delayMs: 2000 } } });
    const api = await y.serve();
    expect((await runKura(['archive', URL], y.env(), y.cwd)).code).toBe(0);
    // while it catches up, the URLs it fetches with die hours before their `expire`
    await y.googlevideo.seen(fetchedFragment(recordedVideoItag(material), 2), 1);
    y.googlevideo.withdraw(VIDEO_ID);
    await archive.endsAfter(material.fragmentCount - 1, material, 32);
    const { details, log } = await archive.finished(api);
    expect(details.capture.gaps).toEqual([]);
    expect(y.googlevideo.requests.filter((r) => r.status === 403).length).toBeGreaterThan(0);
    // the fetches that met a 403 waited for the same renewal instead of each asking yt-dlp
    expect(log.match(/fragment URLs renewed \(.*403\)/g), log).toHaveLength(1);
    expect((await probe(archive.file())).frames).toBe(material.seconds * 10);
  }, 180_000);

  it('a slow link with fragments that take longer than the request limit to arrive: no gap', async () => {
    // about 2 Mbit/s of 2-s fragments (500 kB each), on a link of 40 kB/s: about 12 s a fragment
    const material = await makeFragments({ codecs: 'h264', seconds: 8, targetSeconds: 2, fps: 10, video: { width: 640, height: 360, bitrate: 2_000_000 } });
    y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo: 8 });
    y.googlevideo.throttle = { bytesPerSecond: 40_000 };
    await y.says(liveFromStart(y.googlevideo, VIDEO_ID, 8));
    const api = await y.serve();
    expect((await runKura(['archive', URL], y.env(), y.cwd)).code).toBe(0);
    await archive.endsAfter(material.fragmentCount - 1, material, 8);
    const { details } = await archive.finished(api);
    expect(details.capture.gaps).toEqual([]);
    expect((await probe(archive.file())).frames).toBe(material.seconds * 10);
  }, 240_000);
});
