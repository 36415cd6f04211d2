import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { retentionWindowStart, sqAgo, startGooglevideo, type BroadcastOptions, type Googlevideo } from '../support/googlevideo-stand-in.js';
import { fragmentBytes, makeFragments, type FragmentMaterial } from '../support/youtube-fragments.js';

// The googlevideo STAND-IN's bad days (research §7): each knob behaves as YouTube does on that day.

let googlevideo: Googlevideo;
let material: FragmentMaterial; // 20 s of 1-s fragments
let videoId: string;
let next = 0;

beforeAll(async () => {
  material = await makeFragments({ codecs: 'h264', seconds: 20, targetSeconds: 1 });
  googlevideo = await startGooglevideo();
});
afterAll(() => googlevideo.close());
afterEach(() => {
  googlevideo.throttle = null;
  googlevideo.maxConcurrent = null;
});
const onAir = (options: Omit<BroadcastOptions, 'material'> = {}, station = googlevideo): string => {
  videoId = `gvKnobs${String(next++).padStart(4, '0')}`;
  station.broadcast(videoId, { material, ...options });
  return videoId;
};
const VIDEO = 133;
const fragment = (sq: number, init: RequestInit = {}, station = googlevideo) => fetch(`${station.baseUrl(videoId, VIDEO)}&sq=${sq}`, init);
const headProbe = (method = 'HEAD') => fetch(googlevideo.baseUrl(videoId, VIDEO), { method });
const headSeqnum = (response: Response) => Number(response.headers.get('x-head-seqnum'));
const SIX_DAYS = 6 * 86_400;

describe('the retention window', () => {
  it('is 404 below head − retention/target, and moves up with the head; chunk i is served as sq firstSq + i', async () => {
    const head = sqAgo(SIX_DAYS, 1);
    onAir({ startedSecondsAgo: SIX_DAYS + 0.02, retentionSeconds: 10, firstSq: head - 15 });
    // the head holds still while the window is checked, however slow the machine's answers are
    googlevideo.stall(videoId);
    expect(headSeqnum(await headProbe())).toBe(head);
    const start = retentionWindowStart(head, 10, 1);
    expect(start).toBe(head - 10);
    expect((await fragment(start - 1)).status).toBe(404); // materialised, but out of the window
    const first = await fragment(start);
    expect(first.status).toBe(200);
    expect(Buffer.from(await first.arrayBuffer())).toEqual(await fragmentBytes(material.representations[1]!, 5));
    // once the next fragment is made, the window's first one has fallen out
    googlevideo.resume(videoId);
    const made = await fragment(head + 1); // held until it is made
    googlevideo.stall(videoId);
    expect(made.status).toBe(200);
    expect(Buffer.from(await made.arrayBuffer())).toEqual(await fragmentBytes(material.representations[1]!, 16));
    const moved = googlevideo.head(videoId);
    expect(moved).toBeGreaterThan(head);
    expect((await fragment(start)).status).toBe(404);
    expect((await fragment(retentionWindowStart(moved, 10, 1) - 1)).status).toBe(404);
    expect((await fragment(retentionWindowStart(moved, 10, 1))).status).toBe(200);
  });

  it('is 404 below firstSq (not materialised) even inside the window, and the head stops at the material’s last', async () => {
    onAir({ startedSecondsAgo: SIX_DAYS, firstSq: sqAgo(SIX_DAYS, 1) - 25 });
    const last = sqAgo(SIX_DAYS, 1) - 25 + material.fragmentCount - 1;
    expect(headSeqnum(await headProbe())).toBe(last);
    expect((await fragment(last - material.fragmentCount)).status).toBe(404);
    expect((await fragment(last - material.fragmentCount + 1)).status).toBe(200);
    expect((await fragment(last + 1)).status).toBe(404); // ended by itself: not held
  });

  it('defaults to yt-dlp’s MAX_DURATION (432000 s): a fragment of five days ago is kept, none older', () => {
    expect(retentionWindowStart(sqAgo(SIX_DAYS, 1), 432_000, 1)).toBe(86_400);
    expect(retentionWindowStart(sqAgo(SIX_DAYS, 5), 432_000, 5)).toBe(17_280);
    expect(retentionWindowStart(100, 432_000, 1)).toBe(0);
  });
});

describe('a stall', () => {
  it('freezes X-Head-Seqnum; head+1 is held for 1.5 × target then 404; resume goes on from head+1 with no sq skipped', async () => {
    onAir({ startedSecondsAgo: 3 });
    googlevideo.stall(videoId);
    const head = googlevideo.head(videoId);
    const asked = Date.now();
    const held = await fragment(head + 1);
    expect(held.status).toBe(404);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(1400);
    expect(headSeqnum(held)).toBe(head);
    expect(headSeqnum(await headProbe())).toBe(head);
    googlevideo.resume(videoId);
    expect(googlevideo.head(videoId)).toBe(head); // the stall's 1.5 s did not jump the head
    const resumed = await fragment(head + 1); // held until it is made
    expect(resumed.status).toBe(200);
    expect(headSeqnum(resumed)).toBe(head + 1);
    expect((await fragment(head + 3)).status).toBe(404);
  });

  it('set ahead, lets the head grow to that fragment and freezes it there; resume goes on from the next', async () => {
    onAir({ startedSecondsAgo: 1.5 });
    const head = googlevideo.head(videoId);
    googlevideo.stall(videoId, head + 1);
    const made = await fragment(head + 1); // held until it is made: the stall is not there yet
    expect(made.status).toBe(200);
    expect(headSeqnum(made)).toBe(head + 1);
    const held = await fragment(head + 2); // past the stall: held for 1.5 × target, then 404
    expect(held.status).toBe(404);
    expect(headSeqnum(held)).toBe(head + 1);
    googlevideo.resume(videoId);
    expect(googlevideo.head(videoId)).toBe(head + 1);
    expect((await fragment(head + 2)).status).toBe(200);
  });
});

describe('a processed VOD', () => {
  it('is served up to the frozen head after end() (post_live), and 403 for every URL, GET and HEAD, once processed', async () => {
    onAir({ startedSecondsAgo: 4 });
    googlevideo.end(videoId);
    expect((await fragment(4)).status).toBe(200);
    googlevideo.process(videoId);
    for (const response of [await fragment(0), await fragment(0, { method: 'HEAD' }), await headProbe(), await headProbe('GET')]) {
      expect(response.status).toBe(403);
      expect(response.headers.get('x-head-seqnum')).toBeNull();
    }
  });
});

describe('a throttled link', () => {
  it('sends the headers at once and the body at the rate set, so a fragment takes longer than size / rate', async () => {
    onAir({ startedSecondsAgo: 5 });
    const body = await fragmentBytes(material.representations[1]!, 2);
    const bytesPerSecond = Math.ceil(body.length / 1.5);
    googlevideo.throttle = { bytesPerSecond };
    const asked = Date.now();
    const response = await fragment(2);
    const headersAfter = Date.now() - asked;
    const received = Buffer.from(await response.arrayBuffer());
    const tookMs = Date.now() - asked;
    expect(headersAfter).toBeLessThan(500);
    expect(received).toEqual(body);
    expect(tookMs).toBeGreaterThanOrEqual(1400);
  });
});

describe('too many fetches at once', () => {
  it('answers 401 to a request arriving while maxConcurrent are being answered, and serves again once they are over', async () => {
    const station = await startGooglevideo();
    try {
      onAir({ startedSecondsAgo: 5 }, station);
      station.maxConcurrent = 2;
      station.throttle = { bytesPerSecond: 1000 }; // the bodies take many seconds: both stay in flight
      const aborts = [new AbortController(), new AbortController()];
      const running = [await fragment(1, { signal: aborts[0]!.signal }, station), await fragment(2, { signal: aborts[1]!.signal }, station)];
      expect(running.map((r) => r.status)).toEqual([200, 200]);
      expect((await fragment(3, {}, station)).status).toBe(401);
      expect([station.inFlight, station.inFlightPeak]).toEqual([2, 2]);
      for (const abort of aborts) abort.abort();
      await station.seen((r) => r.videoId === videoId && r.status === 200, 2);
      station.throttle = null;
      expect((await fragment(3, {}, station)).status).toBe(200);
      expect(station.inFlightPeak).toBe(2);
    } finally {
      await station.close();
    }
  });
});
