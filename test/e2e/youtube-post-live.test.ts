import { describe, expect, it } from 'vitest';
import { runKura } from '../support/cli.js';
import { probe } from '../support/hls-fixture.js';
import { liveFromStart, postLive } from '../support/yt-dlp-state.js';
import { useYouTubeHarness } from '../support/youtube-harness.js';
import { youtubeArchive } from '../support/youtube-archive.js';
import { makeFragments } from '../support/youtube-fragments.js';

// A broadcast that has ended but whose fragments YouTube still serves (post_live, before the video
// is processed) is archived whole, end to end: a real `kura serve`, ffmpeg and PostgreSQL, and the
// googlevideo and yt-dlp STAND-INs (issue 48, decision 0088).
const VIDEO_ID = 'postLiveE2e';
const URL = `https://www.youtube.com/watch?v=${VIDEO_ID}`;
const y = useYouTubeHarness('kura-youtube-post-live-');

const archive = youtubeArchive(y, VIDEO_ID);

describe('a YouTube broadcast that has ended (post_live)', () => {
  it('submitted after it ended: archived whole, from its first fragment to its last', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 12, targetSeconds: 1, fps: 10 });
    y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo: 30 });
    y.googlevideo.end(VIDEO_ID);
    await y.says(postLive(y.googlevideo, VIDEO_ID, 30));
    const api = await y.serve();
    expect((await runKura(['archive', URL], y.env(), y.cwd)).code).toBe(0);
    const { details, log } = await archive.finished(api);
    expect(details.capture.gaps).toEqual([]);
    expect(details.capture.complete).toBe(true);
    expect(log).toMatch(/the broadcast ended \(the broadcast has ended \(post_live\)\)/);
    expect((await probe(archive.file())).frames).toBe(material.seconds * 10);
  }, 120_000);

  it('a worker killed during the broadcast and started after it ended: the capture resumes and archives it whole', async () => {
    const material = await makeFragments({ codecs: 'h264', seconds: 16, targetSeconds: 1, fps: 10 });
    const [, video] = material.representations;
    y.googlevideo.broadcast(VIDEO_ID, { material, startedSecondsAgo: 2 });
    await y.says(liveFromStart(y.googlevideo, VIDEO_ID, 2));
    await y.serve();
    expect((await runKura(['archive', URL], y.env(), y.cwd)).code).toBe(0);
    // mid-broadcast the worker dies, and the broadcast ends while it is down
    await y.googlevideo.seen((r) => r.itag === video?.itag && r.sq === 5 && r.status === 200, 1);
    await y.kill();
    y.googlevideo.end(VIDEO_ID);
    const last = y.googlevideo.head(VIDEO_ID);
    await y.says(postLive(y.googlevideo, VIDEO_ID, 20));
    const api = await y.serve();
    const { details, log } = await archive.finished(api);
    expect(log).toMatch(/resuming at sequence \d+/);
    expect(details.capture.gaps).toEqual([]);
    expect((await probe(archive.file())).frames).toBe((last + 1) * 10);
  }, 180_000);
});
