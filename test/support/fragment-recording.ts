import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createFragmentRecorder } from '../../src/adapters/capture/fragment-recorder.js';
import type { FragmentTiming } from '../../src/adapters/capture/fragment-timing.js';
import { createSpool } from '../../src/adapters/capture/spool.js';
import { freeBytes } from '../../src/adapters/os/disk-space.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFetcher, type Fetcher } from '../../src/adapters/sources/http-fetch.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { trackSpans } from '../../src/core/capture/fragment-tracks.js';
import type { CaptureRepo, Renewal } from '../../src/core/capture/ports.js';
import type { FragmentedStream, FragmentFormat } from '../../src/core/sources/ports.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { startGooglevideo, type Googlevideo } from './googlevideo-stand-in.js';
import { recorderLimits } from './recorder-limits.js';
import { fragmentBytes, makeFragments, type FragmentMaterial, type FragmentOptions } from './youtube-fragments.js';

/** The recorder's pace, shortened: a frozen head is asked about after half a second. */
export const FAST_FRAGMENTS: FragmentTiming = {
  backoffMs: [20, 20, 20, 20, 20, 20, 20],
  renewEveryMs: 500,
  renewMaxBackoffMs: 1000,
  quietMs: 500,
  askMaxMs: 1000,
  stallLimitMs: 60_000,
  inFlight: 4,
  retentionSeconds: 432_000,
};

/** What a test of the fragment recorder in its own process works with (see useFragmentRecording). */
export interface FragmentRecording {
  readonly id: string;
  readonly db: TestDatabase;
  readonly dir: string;
  readonly captures: CaptureRepo;
  readonly googlevideo: Googlevideo;
  readonly material: FragmentMaterial;
  /** The broadcast's formats under freshly minted URLs, as the source hands them out. */
  stream(): FragmentedStream;
  /** What the source says while the broadcast is live: the formats under fresh URLs. */
  live(): Renewal;
  /** Records the broadcast; `renew` is the source. */
  record(renew: () => Promise<Renewal>, options?: { first?: FragmentedStream; fetcher?: Fetcher; timing?: Partial<FragmentTiming> }): Promise<string>;
  /** Each track as stored: its fragments' bytes one after another, read back from the archive store's chunks. */
  storedTracks(): Promise<{ video: Buffer; audio: Buffer }>;
  /** The bytes of these fragments of a representation of the material (1: the bigger video, 2: the audio), one after another. */
  expected(representation: number, sqs: readonly number[]): Promise<Buffer>;
}

/** What the source says once the broadcast is over and its video processed (was_live). */
export const OVER: Renewal = { state: 'ended', reason: 'the broadcast has ended and its video is processed (was_live)', stream: null };

/**
 * A real PostgreSQL, a folder for the spool and the fs store, and a googlevideo STAND-IN for each
 * test of the file, with fragment material made by ffmpeg (`options`, 12 s of 1-s H.264 by default).
 */
export function useFragmentRecording(id: string, options: FragmentOptions = { codecs: 'h264', seconds: 12, targetSeconds: 1, fps: 10 }): FragmentRecording {
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
    material = await makeFragments(options);
  });
  afterEach(async () => {
    await googlevideo.close();
    await db.drop();
  });
  const recording: FragmentRecording = {
    id,
    get db() {
      return db;
    },
    get dir() {
      return dir;
    },
    get captures() {
      return captures;
    },
    get googlevideo() {
      return googlevideo;
    },
    get material() {
      return material;
    },
    stream() {
      const formats: FragmentFormat[] = material.representations.map((r) => ({
        id: String(r.itag),
        url: googlevideo.baseUrl(id, r.itag),
        mime: r.mime,
        codec: r.codecs,
        width: r.width,
        height: r.height,
        fps: r.fps,
        bitrate: r.bitrate,
      }));
      return { video: formats[1] as FragmentFormat, audio: formats[2] as FragmentFormat, fragmentSeconds: material.targetSeconds, offered: formats };
    },
    live: () => ({ state: 'live', stream: recording.stream() }),
    async record(renew, { first = recording.stream(), fetcher = createFetcher({ allowPrivate: true }), timing = {} } = {}) {
      await db.pool.query(`insert into livestreams (id, platform, source_url, status, scheduled_start_at) values ($1, 'youtube', $2, 'live', now())`, [
        id,
        `https://www.youtube.com/watch?v=${id}`,
      ]);
      const capture = await captures.claim(id, 'worker-1', 30);
      const recorder = createFragmentRecorder(
        {
          captures,
          fetcher,
          spool: createSpool(path.join(dir, 'spool')),
          store: createFsStore(path.join(dir, 'archive')),
          freeBytes,
          limits: recorderLimits({ idleSeconds: 60, chunkBytes: 256 * 1024 }),
        },
        { ...FAST_FRAGMENTS, ...timing },
      );
      if (capture === null) throw new Error(`${id} could not be claimed`);
      return recorder.record({ capture, stream: first, workerId: 'worker-1', renew }, new AbortController().signal);
    },
    async storedTracks() {
      const chunks = await captures.chunks(id);
      const part = Buffer.concat(await Promise.all(chunks.map((c) => readFile(path.join(dir, 'archive', c.key)))));
      const spans = trackSpans(await captures.segmentsFrom(id, 0));
      const track = (list: typeof spans.video) => Buffer.concat(list.map((s) => part.subarray(s.startOffset, s.endOffset)));
      return { video: track(spans.video), audio: track(spans.audio) };
    },
    async expected(representation, sqs) {
      const chosen = material.representations[representation];
      if (chosen === undefined) throw new Error(`the material has no representation ${representation}`);
      return Buffer.concat(await Promise.all(sqs.map((sq) => fragmentBytes(chosen, sq))));
    },
  };
  return recording;
}
