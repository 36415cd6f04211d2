import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFetcher, type Fetcher } from '../../src/adapters/sources/http-fetch.js';
import { FragmentsUnavailable } from '../../src/core/capture/fragment-tracks.js';
import { liveFrameDeps } from '../support/live-capture.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import { refreshLiveFrame } from '../../src/core/playback/refresh-live-frame.js';
import { OVER, useFragmentRecording } from '../support/fragment-recording.js';

// The fragment recorder in this process, on a real PostgreSQL and the fs store, against the
// googlevideo STAND-IN (test/support/googlevideo-stand-in.ts): what it stores must be each
// fragment's bytes, once, in order; what it does on a 403 and at the end is yt-dlp's protocol.
const f = useFragmentRecording('fragRecTest');
const ID = f.id;
const all = () => Array.from({ length: f.material.fragmentCount }, (_, i) => i);

describe('the fragment recorder', () => {
  it('records every fragment from 0 of a broadcast begun before it looked, each once and in order, and ends when the source says it is OVER (its recent frame made of the last video fragment)', async () => {
    f.googlevideo.broadcast(ID, { material: f.material, startedSecondsAgo: 9 });
    let renewals = 0;
    // the source says live while the head grows, and OVER once it stopped
    const reason = await f.record(async () => {
      renewals++;
      return f.googlevideo.head(ID) === f.material.fragmentCount - 1 ? OVER : f.live();
    });
    expect(reason).toBe('endlist');
    expect(renewals).toBe(1);
    const { video, audio } = await f.storedTracks();
    expect(video.equals(await f.expected(1, all()))).toBe(true);
    expect(audio.equals(await f.expected(2, all()))).toBe(true);
    expect(await f.captures.gaps(ID)).toEqual([]);
    // the first look saw fragment 9 as the newest, and the recording began at fragment 0, not there
    // (the stand-in notes a request once answered: fragments fetched at once finish in any order)
    const fetched = f.googlevideo.requests.flatMap((r) => (r.sq === null ? [] : [r.sq]));
    expect(Math.min(...fetched)).toBe(0);
    expect(await f.captures.readLog(ID)).toMatch(/recording fragments from fragment 0: video 133 .*; the newest is 9/);

    // the recent frame: the last video fragment, a file of its own (captureStream pins the formats before recording)
    const { video: pinnedVideo, audio: pinnedAudio } = f.stream();
    await f.captures.setFragmentFormats(ID, { video: pinnedVideo.id, audio: pinnedAudio.id, fragmentSeconds: 1 });
    const deps = liveFrameDeps({ db: f.db, archiveDir: path.join(f.dir, 'archive'), captures: f.captures, spoolDir: path.join(f.dir, 'spool') });
    expect(await refreshLiveFrame(deps, ID, 'worker-1')).toBe('stored');
    const frame = await readFile(path.join(f.dir, 'archive', objectKeys.liveFrame(ID)));
    expect(frame.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it('renews its URLs through the source when they expire (403) and loses nothing', async () => {
    f.googlevideo.broadcast(ID, { material: f.material, startedSecondsAgo: 12, expireInSeconds: 3600 });
    // the URLs the capture starts with have already expired; the source hands out fresh ones
    f.googlevideo.broadcast(ID, { material: f.material, startedSecondsAgo: 12, expireInSeconds: 0 });
    const expiredAtStart = f.stream();
    f.googlevideo.broadcast(ID, { material: f.material, startedSecondsAgo: 12, expireInSeconds: 3600 });
    let renewals = 0;
    const reason = await f.record(async () => (++renewals === 1 ? f.live() : OVER), { first: expiredAtStart });
    expect(reason).toBe('endlist');
    expect(f.googlevideo.requests.filter((r) => r.status === 403).length).toBeGreaterThan(0);
    const { video, audio } = await f.storedTracks();
    expect(video.equals(await f.expected(1, all()))).toBe(true);
    expect(audio.equals(await f.expected(2, all()))).toBe(true);
    expect(await f.captures.gaps(ID)).toEqual([]);
    expect(await f.captures.readLog(ID)).toMatch(/fragment URLs renewed \(.*403\)/);
  });

  it('records a fragment the source lost as one gap of its length, and the audio it lost alone as a gap of its own', async () => {
    f.googlevideo.broadcast(ID, { material: f.material, startedSecondsAgo: 12 });
    f.googlevideo.lose(ID, 3); // both tracks
    f.googlevideo.lose(ID, 5, f.material.representations[2]!.itag); // the audio alone
    const reason = await f.record(async () => OVER);
    expect(reason).toBe('endlist');
    expect((await f.captures.gaps(ID)).map(({ firstSequence, lastSequence, seconds }) => ({ firstSequence, lastSequence, seconds }))).toEqual([
      { firstSequence: 6, lastSequence: 7, seconds: 1 },
      { firstSequence: 11, lastSequence: 11, seconds: 1 },
    ]);
    const { video, audio } = await f.storedTracks();
    expect(
      video.equals(
        await f.expected(
          1,
          all().filter((n) => n !== 3),
        ),
      ),
    ).toBe(true);
    expect(
      audio.equals(
        await f.expected(
          2,
          all().filter((n) => n !== 3 && n !== 5),
        ),
      ),
    ).toBe(true);
  });

  it('gives the fragment path up before storing anything when the source refuses every try of the first fragment', async () => {
    f.googlevideo.broadcast(ID, { material: f.material, startedSecondsAgo: 12 });
    f.googlevideo.fault = ({ sq }) => (sq === null ? null : 401);
    await expect(f.record(async () => f.live())).rejects.toThrow(FragmentsUnavailable);
    expect(await f.captures.segmentsFrom(ID, 0)).toEqual([]);
  });

  it('ends as access_lost, keeping what it recorded and no gap, when the source refuses Kura mid-stream (the cookies stopped working)', async () => {
    f.googlevideo.broadcast(ID, { material: f.material, startedSecondsAgo: 12 });
    // from fragment 6 on, the URLs answer 403 (as an expired one does); asked again, the source refuses Kura
    f.googlevideo.fault = ({ sq }) => (sq !== null && sq >= 6 ? 403 : null);
    let renewals = 0;
    const reason = await f.record(async () => {
      renewals++;
      return { state: 'access_lost', reason: 'Join this channel to get access to members-only content like this video' };
    });
    expect(reason).toBe('access_lost');
    expect(renewals).toBe(1);
    expect(await f.captures.gaps(ID)).toEqual([]);
    const { video, audio } = await f.storedTracks();
    expect(video.equals(await f.expected(1, [0, 1, 2, 3, 4, 5]))).toBe(true);
    expect(audio.equals(await f.expected(2, [0, 1, 2, 3, 4, 5]))).toBe(true);
    expect(await f.captures.readLog(ID)).toMatch(/answered 403, and the source refuses Kura now: Join this channel/);
  });

  it('fetches four fragments at once while it catches up, and stores them in order', async () => {
    f.googlevideo.broadcast(ID, { material: f.material, startedSecondsAgo: 12 });
    const real = createFetcher({ allowPrivate: true });
    // a DOUBLE around the real fetcher: the first eight fragment requests (four fragments, two tracks) are held until all eight are asked for
    const held: Array<() => void> = [];
    let asked = 0;
    const fetcher: Fetcher = {
      ...real,
      async withHeaders(url, options) {
        if (new URL(url).searchParams.has('sq') && ++asked <= 8) {
          await new Promise<void>((resolve, reject) => {
            held.push(resolve);
            if (held.length === 8) for (const release of held) release();
            setTimeout(() => reject(new Error(`only ${held.length} fragment requests were made at once`)), 5000).unref();
          });
        }
        return real.withHeaders(url, options);
      },
    };
    expect(await f.record(async () => OVER, { fetcher })).toBe('endlist');
    const { video, audio } = await f.storedTracks();
    expect(video.equals(await f.expected(1, all()))).toBe(true);
    expect(audio.equals(await f.expected(2, all()))).toBe(true);
  });
});
