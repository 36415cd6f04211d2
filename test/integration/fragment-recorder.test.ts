import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFragmentRecorder } from '../../src/adapters/capture/fragment-recorder.js';
import { createSpool, freeBytes } from '../../src/adapters/capture/spool.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFetcher, type Fetcher } from '../../src/adapters/sources/http-fetch.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { FragmentsUnavailable, trackSpans } from '../../src/core/capture/fragment-tracks.js';
import type { CaptureRepo, Renewal } from '../../src/core/capture/ports.js';
import type { FragmentedStream, FragmentFormat } from '../../src/core/sources/ports.js';
import { recorderLimits } from '../support/recorder-limits.js';
import { liveFrameDeps } from '../support/live-capture.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import { refreshLiveFrame } from '../../src/core/capture/refresh-live-frame.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startGooglevideo, type Googlevideo } from '../support/googlevideo-stand-in.js';
import { fragmentBytes, makeFragments, type FragmentMaterial } from '../support/youtube-fragments.js';

// The fragment recorder in this process, on a real PostgreSQL and the fs store, against the
// googlevideo STAND-IN (test/support/googlevideo-stand-in.ts): what it stores must be each
// fragment's bytes, once, in order; what it does on a 403 and at the end is yt-dlp's protocol.
const ID = 'fragRecTest';
let db: TestDatabase;
let dir: string;
let captures: CaptureRepo;
let googlevideo: Googlevideo;
let material: FragmentMaterial;

beforeEach(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-fragment-recorder-'));
  captures = createCaptureRepo(db.pool);
  googlevideo = await startGooglevideo();
  material = await makeFragments({ codecs: 'h264', seconds: 12, targetSeconds: 1, fps: 10 });
});
afterEach(async () => {
  await googlevideo.close();
  await db.drop();
});

/** The recorder's pace, shortened: a frozen head is asked about after half a second. */
const FAST = {
  backoffMs: [20, 20, 20, 20, 20, 20, 20],
  renewEveryMs: 500,
  renewMaxBackoffMs: 1000,
  quietMs: 500,
  askMaxMs: 1000,
  stallLimitMs: 60_000,
  inFlight: 4,
  retentionSeconds: 432_000,
};

/** The broadcast's formats under freshly minted URLs, as the source hands them out. */
function stream(): FragmentedStream {
  const formats: FragmentFormat[] = material.representations.map((r) => ({
    id: String(r.itag),
    url: googlevideo.baseUrl(ID, r.itag),
    mime: r.mime,
    codec: r.codecs,
    width: r.width,
    height: r.height,
    fps: r.fps,
    bitrate: r.bitrate,
  }));
  return { video: formats[1] as FragmentFormat, audio: formats[2] as FragmentFormat, fragmentSeconds: 1, offered: formats };
}

/** What the source says while the broadcast is live: the formats under fresh URLs. */
const live = (): Renewal => ({ state: 'live', stream: stream() });
/** What the source says once the broadcast is over and its video processed (was_live). */
const over: Renewal = { state: 'ended', reason: 'the broadcast has ended and its video is processed (was_live)', stream: null };

/** Records the broadcast; `renew` is the source: fresh URLs while live, null once over, `accessLost` once it refuses Kura. */
async function record(renew: () => Promise<Renewal>, first = stream(), fetcher: Fetcher = createFetcher({ allowPrivate: true })) {
  await db.pool.query(`insert into livestreams (id, platform, source_url, status, scheduled_start_at) values ($1, 'youtube', $2, 'live', now())`, [
    ID,
    `https://www.youtube.com/watch?v=${ID}`,
  ]);
  const capture = await captures.claim(ID, 'worker-1', 30);
  const recorder = createFragmentRecorder(
    {
      captures,
      fetcher,
      spool: createSpool(path.join(dir, 'spool')),
      store: createFsStore(path.join(dir, 'archive')),
      freeBytes,
      limits: recorderLimits({ idleSeconds: 60, chunkBytes: 256 * 1024 }),
    },
    FAST,
  );
  return recorder.record({ capture: capture!, stream: first, workerId: 'worker-1', renew }, new AbortController().signal);
}

/** Each track as stored: its fragments' bytes one after another, read back from the archive store's chunks. */
async function storedTracks(): Promise<{ video: Buffer; audio: Buffer }> {
  const chunks = await captures.chunks(ID);
  const part = Buffer.concat(await Promise.all(chunks.map((c) => readFile(path.join(dir, 'archive', c.key)))));
  const spans = trackSpans(await captures.segmentsFrom(ID, 0));
  const track = (list: typeof spans.video) => Buffer.concat(list.map((s) => part.subarray(s.startOffset, s.endOffset)));
  return { video: track(spans.video), audio: track(spans.audio) };
}
async function expected(representation: number, sqs: number[]): Promise<Buffer> {
  return Buffer.concat(await Promise.all(sqs.map((sq) => fragmentBytes(material.representations[representation]!, sq))));
}
const all = () => Array.from({ length: material.fragmentCount }, (_, i) => i);

describe('the fragment recorder', () => {
  it('records every fragment from 0 of a broadcast begun before it looked, each once and in order, and ends when the source says it is over (its recent frame made of the last video fragment)', async () => {
    googlevideo.broadcast(ID, { material, startedSecondsAgo: 9 });
    let renewals = 0;
    // the source says live while the head grows, and over once it stopped
    const reason = await record(async () => {
      renewals++;
      return googlevideo.head(ID) === material.fragmentCount - 1 ? over : live();
    });
    expect(reason).toBe('endlist');
    expect(renewals).toBe(1);
    const { video, audio } = await storedTracks();
    expect(video.equals(await expected(1, all()))).toBe(true);
    expect(audio.equals(await expected(2, all()))).toBe(true);
    expect(await captures.gaps(ID)).toEqual([]);
    // the first look saw fragment 9 as the newest, and fragment 0 was asked for first
    const firstFetch = googlevideo.requests.find((r) => r.sq !== null);
    expect(firstFetch?.sq).toBe(0);
    expect(await captures.readLog(ID)).toMatch(/recording fragments from fragment 0: video 133 .*; the newest is 9/);

    // the recent frame: the last video fragment, a file of its own (captureStream pins the formats before recording)
    const { video: pinnedVideo, audio: pinnedAudio } = stream();
    await captures.setFragmentFormats(ID, { video: pinnedVideo.id, audio: pinnedAudio.id, fragmentSeconds: 1 });
    const deps = liveFrameDeps({ db, archiveDir: path.join(dir, 'archive'), captures, spoolDir: path.join(dir, 'spool') });
    expect(await refreshLiveFrame(deps, ID, 'worker-1')).toBe('stored');
    const frame = await readFile(path.join(dir, 'archive', objectKeys.liveFrame(ID)));
    expect(frame.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it('renews its URLs through the source when they expire (403) and loses nothing', async () => {
    googlevideo.broadcast(ID, { material, startedSecondsAgo: 12, expireInSeconds: 3600 });
    // the URLs the capture starts with have already expired; the source hands out fresh ones
    googlevideo.broadcast(ID, { material, startedSecondsAgo: 12, expireInSeconds: 0 });
    const expiredAtStart = stream();
    googlevideo.broadcast(ID, { material, startedSecondsAgo: 12, expireInSeconds: 3600 });
    let renewals = 0;
    const reason = await record(async () => (++renewals === 1 ? live() : over), expiredAtStart);
    expect(reason).toBe('endlist');
    expect(googlevideo.requests.filter((r) => r.status === 403).length).toBeGreaterThan(0);
    const { video, audio } = await storedTracks();
    expect(video.equals(await expected(1, all()))).toBe(true);
    expect(audio.equals(await expected(2, all()))).toBe(true);
    expect(await captures.gaps(ID)).toEqual([]);
    expect(await captures.readLog(ID)).toMatch(/fragment URLs renewed \(.*403\)/);
  });

  it('records a fragment the source lost as one gap of its length, and the audio it lost alone as a gap of its own', async () => {
    googlevideo.broadcast(ID, { material, startedSecondsAgo: 12 });
    googlevideo.lose(ID, 3); // both tracks
    googlevideo.lose(ID, 5, material.representations[2]!.itag); // the audio alone
    const reason = await record(async () => over);
    expect(reason).toBe('endlist');
    expect((await captures.gaps(ID)).map(({ firstSequence, lastSequence, seconds }) => ({ firstSequence, lastSequence, seconds }))).toEqual([
      { firstSequence: 6, lastSequence: 7, seconds: 1 },
      { firstSequence: 11, lastSequence: 11, seconds: 1 },
    ]);
    const { video, audio } = await storedTracks();
    expect(
      video.equals(
        await expected(
          1,
          all().filter((n) => n !== 3),
        ),
      ),
    ).toBe(true);
    expect(
      audio.equals(
        await expected(
          2,
          all().filter((n) => n !== 3 && n !== 5),
        ),
      ),
    ).toBe(true);
  });

  it('gives the fragment path up before storing anything when the source refuses every try of the first fragment', async () => {
    googlevideo.broadcast(ID, { material, startedSecondsAgo: 12 });
    googlevideo.fault = ({ sq }) => (sq === null ? null : 401);
    await expect(record(async () => live())).rejects.toThrow(FragmentsUnavailable);
    expect(await captures.segmentsFrom(ID, 0)).toEqual([]);
  });

  it('ends as access_lost, keeping what it recorded and no gap, when the source refuses Kura mid-stream (the cookies stopped working)', async () => {
    googlevideo.broadcast(ID, { material, startedSecondsAgo: 12 });
    // from fragment 6 on, the URLs answer 403 (as an expired one does); asked again, the source refuses Kura
    googlevideo.fault = ({ sq }) => (sq !== null && sq >= 6 ? 403 : null);
    let renewals = 0;
    const reason = await record(async () => {
      renewals++;
      return { state: 'access_lost', reason: 'Join this channel to get access to members-only content like this video' };
    });
    expect(reason).toBe('access_lost');
    expect(renewals).toBe(1);
    expect(await captures.gaps(ID)).toEqual([]);
    const { video, audio } = await storedTracks();
    expect(video.equals(await expected(1, [0, 1, 2, 3, 4, 5]))).toBe(true);
    expect(audio.equals(await expected(2, [0, 1, 2, 3, 4, 5]))).toBe(true);
    expect(await captures.readLog(ID)).toMatch(/answered 403, and the source refuses Kura now: Join this channel/);
  });

  it('fetches four fragments at once while it catches up, and stores them in order', async () => {
    googlevideo.broadcast(ID, { material, startedSecondsAgo: 12 });
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
    expect(await record(async () => over, stream(), fetcher)).toBe('endlist');
    const { video, audio } = await storedTracks();
    expect(video.equals(await expected(1, all()))).toBe(true);
    expect(audio.equals(await expected(2, all()))).toBe(true);
  });
});
