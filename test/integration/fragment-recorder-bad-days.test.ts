import { afterEach, describe, expect, it } from 'vitest';
import { createYouTubeSource, createYtDlp } from '../../src/adapters/sources/youtube-source.js';
import { ytdlpProgram } from '../../src/adapters/ytdlp/ytdlp-program.js';
import { renewal } from '../../src/core/capture/capture-stream.js';
import type { Livestream } from '../../src/core/records/livestream.js';
import { YTDLP_STAND_IN } from '../support/app.js';
import { useFragmentRecording } from '../support/fragment-recording.js';
import { sqAgo } from '../support/googlevideo-stand-in.js';
import { liveFromStart, postLive, ytDlpStandIn } from '../support/yt-dlp-state.js';

// The fragment recorder on YouTube's bad days (issue 48, decision 0088): the googlevideo STAND-IN
// forgets old fragments, refuses too many fetches at once and serves post_live as YouTube does, and
// the source the recorder asks again is the real YouTube source running the yt-dlp STAND-IN
// (docs/research/youtube-live-contract.md §7). A stall, URL expiry and a slow link are proven end to
// end (test/e2e/youtube-stall.test.ts, youtube-bad-days.test.ts).
const f = useFragmentRecording('badDaysTest');
const ID = f.id;

afterEach(() => {
  delete process.env.YTDLP_STAND_IN_STATE;
});

/** The yt-dlp STAND-IN of this test, and the recorder's way of asking it again (what captureStream hands the recorder). */
function youtube() {
  const standIn = ytDlpStandIn(f.dir);
  process.env.YTDLP_STAND_IN_STATE = standIn.file;
  const source = createYouTubeSource(createYtDlp(ytdlpProgram(YTDLP_STAND_IN)));
  const record = { id: ID, sourceUrl: `https://www.youtube.com/watch?v=${ID}`, requestedQuality: null } as Livestream;
  const [, video, audio] = f.material.representations.map((r) => String(r.itag));
  const ids = { video: video as string, audio: audio as string, fragmentSeconds: f.material.targetSeconds };
  return { says: standIn.says, renew: () => renewal({ source }, record, ids) };
}

const gapsOf = async () => (await f.captures.gaps(ID)).map(({ firstSequence, lastSequence, reason }) => ({ firstSequence, lastSequence, reason }));
const all = () => Array.from({ length: f.material.fragmentCount }, (_, i) => i);

/** Once both tracks of fragment `lastSq` are fetched, `then`. */
function afterLastFragment(lastSq: number, then: () => Promise<void>): Promise<void> {
  return f.googlevideo.seen((r) => r.sq === lastSq && r.status === 200, 2).then(then);
}

/** The broadcast ends; yt-dlp says post_live. */
async function endsAsPostLive(yt: ReturnType<typeof youtube>, startedSecondsAgo: number): Promise<void> {
  f.googlevideo.end(ID);
  await yt.says(postLive(f.googlevideo, ID, startedSecondsAgo));
}

/** Both tracks hold every fragment of the material, in order. */
async function expectWhole(chunks: readonly number[] = all()): Promise<void> {
  const { video, audio } = await f.storedTracks();
  expect(video.equals(await f.expected(1, chunks))).toBe(true);
  expect(audio.equals(await f.expected(2, chunks))).toBe(true);
}

describe('the fragment recorder on YouTube bad days', () => {
  it('starts a stream found six days after it began at the first fragment YouTube keeps, the ones before it one gap', async () => {
    const yt = youtube();
    const sixDays = 6 * 86_400;
    // YouTube keeps the last 5 fragments here, not the 120 h Kura takes it for: the recorder finds the first it serves
    const firstSq = sqAgo(sixDays, 1) - 5;
    f.googlevideo.broadcast(ID, { material: f.material, startedSecondsAgo: sixDays, retentionSeconds: 5, firstSq });
    await yt.says(liveFromStart(f.googlevideo, ID, sixDays));
    // at its end the video is processed at once (a post_live look would list six days of fragments)
    const ended = afterLastFragment(firstSq + f.material.fragmentCount - 1, async () => {
      f.googlevideo.process(ID);
      await yt.says({ videos: { [ID]: { liveStatus: 'was_live' } } });
    });
    expect(await f.record(yt.renew, { timing: { retentionSeconds: 432_000 } })).toBe('endlist');
    await ended;
    const gaps = await gapsOf();
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toMatchObject({ firstSequence: 0, reason: expect.stringMatching(/^the broadcast began 144 h before Kura found it/) });
    // nothing below the first fragment kept was fetched (a few looks found it), and every one from it was recorded
    const started = ((gaps[0]?.lastSequence ?? 0) + 1) / 2;
    expect(f.googlevideo.requests.filter((r) => r.method === 'GET' && r.sq !== null && r.sq < started)).toEqual([]);
    expect(f.googlevideo.requests.filter((r) => r.method === 'HEAD' && r.sq !== null).length).toBeLessThan(25);
    expect(
      f.googlevideo.requests.filter((r) => r.method === 'GET' && r.status === 404 && r.sq !== null && r.sq <= firstSq + f.material.fragmentCount - 1),
    ).toEqual([]);
    await expectWhole(all().filter((i) => firstSq + i >= started));
  });

  it('fetches fewer fragments at once when YouTube answers 401 to too many, and loses none', async () => {
    const yt = youtube();
    f.googlevideo.broadcast(ID, { material: f.material, startedSecondsAgo: 12 });
    await yt.says(liveFromStart(f.googlevideo, ID, 12));
    f.googlevideo.throttle = { bytesPerSecond: 100_000 };
    f.googlevideo.maxConcurrent = 3;
    const ended = afterLastFragment(f.material.fragmentCount - 1, () => endsAsPostLive(yt, 12));
    const recording = f.record(yt.renew);
    // narrowed to what YouTube takes; once it takes more again, more are fetched at once again
    await expect.poll(() => f.captures.readLog(ID)).toMatch(/HTTP 401: fetching 1 fragment\(s\) at once from now on/);
    f.googlevideo.maxConcurrent = null;
    expect(await recording).toBe('endlist');
    await ended;
    expect(await gapsOf()).toEqual([]);
    await expectWhole();
    expect(await f.captures.readLog(ID)).toMatch(/in a row: fetching 2 fragment\(s\) at once again/);
  });

  it('records a broadcast that has ended (post_live) from its first fragment to its last, then ends', async () => {
    const yt = youtube();
    f.googlevideo.broadcast(ID, { material: f.material, startedSecondsAgo: 12 });
    f.googlevideo.end(ID);
    await yt.says(postLive(f.googlevideo, ID, 12));
    const first = await yt.renew();
    expect(first.state).toBe('ended');
    if (first.state !== 'ended' || first.stream === null) throw new Error('post_live lists no formats');
    expect(await f.record(yt.renew, { first: first.stream })).toBe('endlist');
    expect(await gapsOf()).toEqual([]);
    await expectWhole();
    // processed meanwhile: what could not be fetched any more is one gap, said so
    expect(await f.captures.readLog(ID)).toMatch(/the broadcast ended \(the broadcast has ended \(post_live\)\) and every fragment up to 11 was fetched/);
  });
});
