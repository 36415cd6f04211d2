// The measured half of bench/fragments: one process recording one capture with one of Kura's two
// recorders (the fragment recorder or the HLS recorder, the real capture repo on a real PostgreSQL,
// the fs store, Kura's default limits), then finalizing it as the worker's job does
// (finalizeArchive: the mux or remux, duration, thumbnail, log, the record). Started by
// bench/fragments.ts; prints `ready`, waits for `go` on stdin, then prints one JSON line: the CPU
// of each phase (this process's threads and the children it waited for: ffmpeg, ffprobe).
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createFragmentRecorder } from '../src/adapters/capture/fragment-recorder.js';
import { createHlsRecorder } from '../src/adapters/capture/hls-recorder.js';
import { createSpool } from '../src/adapters/capture/spool.js';
import { freeBytes } from '../src/adapters/os/disk-space.js';
import { createCaptureRepo } from '../src/adapters/db/capture-repo.js';
import { createChatRepo } from '../src/adapters/db/chat-repo.js';
import { createLivestreamRepo } from '../src/adapters/db/livestream-repo.js';
import { migrateToThisRelease } from '../src/wiring/release.js';
import { createPool } from '../src/adapters/db/pool.js';
import { createFfmpegTools } from '../src/adapters/media/ffmpeg-tools.js';
import { createFetcher } from '../src/adapters/sources/http-fetch.js';
import { createFsStore } from '../src/adapters/storage/fs-store.js';
import { tuneV8 } from '../src/cli/v8-tuning.js';
import { chatArchive } from '../src/core/chat/store-chat.js';
import { finalizeArchive } from '../src/core/capture/finalize-archive.js';
import type { FragmentedStream } from '../src/core/sources/ports.js';
import type { Renewal } from '../src/core/capture/ports.js';
import { cpuSplit, minus, type CpuSplit } from './proc-usage.js';

export type FragmentsRunInput = {
  databaseUrl: string;
  dataDir: string;
} & (
  | { path: 'hls'; playlistUrl: string }
  /** Once the broadcast's newest fragment is `lastFragment`, the source says the stream is over (renew gives null). */
  | { path: 'fragments'; stream: FragmentedStream; lastFragment: number }
);

export interface FragmentsRunResult {
  recording: CpuSplit;
  finalize: CpuSplit;
  /** Seconds from `go` to the capture's end, and from there to the archive stored. */
  recordingWall: number;
  finalizeWall: number;
  endReason: string;
  segments: number;
  gaps: number;
  archive: { bytes: number; seconds: number; sha256: string } | null;
}

const CHUNK_BYTES = 64 * 1024 * 1024;
const ID = 'bench-fragments';

async function main(): Promise<void> {
  tuneV8('long'); // as `kura serve` does
  const input = JSON.parse(process.argv[2] as string) as FragmentsRunInput;
  const pool = createPool({ connectionString: input.databaseUrl });
  await migrateToThisRelease(pool);
  const captures = createCaptureRepo(pool);
  const livestreams = createLivestreamRepo(pool);
  const workerId = `bench:${process.pid}`;
  const source = input.path === 'hls' ? input.playlistUrl : `https://www.youtube.com/watch?v=${ID}`;
  // platform hls for both: finalize then takes the thumbnail from the video alike (a YouTube record would fetch the source's)
  await pool.query(`insert into livestreams (id, platform, source_url, status, title, scheduled_start_at) values ($1, 'hls', $2, 'live', 'bench', now())`, [
    ID,
    source,
  ]);
  const capture = await captures.claim(ID, workerId, 30);
  if (capture === null) throw new Error('the capture could not be claimed');
  const store = createFsStore(path.join(input.dataDir, 'archive'));
  const spool = createSpool(path.join(input.dataDir, 'spool'));
  const fetcher = createFetcher({ allowPrivate: true });
  const recorderDeps = {
    captures,
    fetcher,
    spool,
    store,
    freeBytes,
    // Kura's defaults (src/config/config.ts), the heartbeat as the worker derives it from the 30 s lease
    limits: {
      ...{ idleSeconds: 90, unreachableSeconds: 600, offlineSeconds: 30, maxSeconds: 12 * 3600, maxBytes: 100e9 },
      ...{ minFreeBytes: 1024 * 1024 * 1024, heartbeatSeconds: 5, chunkBytes: CHUNK_BYTES, chunkSeconds: 0, handoverMs: 8000 },
    },
  };
  if (input.path === 'fragments') {
    const { stream } = input;
    await captures.setFragmentFormats(ID, { video: stream.video.id, audio: stream.audio.id, fragmentSeconds: stream.fragmentSeconds });
  } else {
    await captures.setPlaylist(ID, input.playlistUrl);
  }
  const claimed = (await captures.get(ID)) ?? capture;
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()));

  const signal = new AbortController().signal;
  const started = Date.now();
  const before = await cpuSplit(process.pid);
  let endReason: string;
  if (input.path === 'fragments') {
    // what yt-dlp answers when asked again: the same formats under fresh URLs while live, ended once the broadcast is over
    const headUrl = input.stream.video.url;
    const renew = async (): Promise<Renewal> => {
      const { headers } = await fetcher.withHeaders(headUrl, { method: 'HEAD', maxBytes: 0 });
      const over = Number(headers['x-head-seqnum']) >= input.lastFragment;
      return over ? { state: 'ended', reason: 'the broadcast is over', stream: null } : { state: 'live', stream: input.stream };
    };
    endReason = await createFragmentRecorder(recorderDeps).record({ capture: claimed, stream: input.stream, workerId, renew }, signal);
  } else {
    endReason = await createHlsRecorder(recorderDeps).record(
      { capture: claimed, playlist: { url: input.playlistUrl, headers: null, audio: [] }, workerId },
      signal,
    );
  }
  await captures.end(ID, endReason as Parameters<typeof captures.end>[1]);
  const ended = await cpuSplit(process.pid);
  const endedAt = Date.now();
  const count = async (table: string) => Number((await pool.query(`select count(*) as n from ${table}`)).rows[0].n);
  const segments = await count('capture_segments');
  const gaps = await count('capture_gaps');

  const media = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: CHUNK_BYTES });
  const chats = createChatRepo(pool);
  await finalizeArchive(
    {
      livestreams,
      captures,
      media,
      store,
      spool,
      fetchImage: async () => Buffer.alloc(0),
      chatArchive: chatArchive({ chats, store, spool }),
      scheduler: { watch: async () => {} }, // the bench's stream ends for good: nothing is looked at again
    },
    ID,
    { workerId, staleAfterSeconds: 30 },
  );
  const finalized = await cpuSplit(process.pid);

  const archive = (await livestreams.findById(ID))?.archive ?? null;
  const result: FragmentsRunResult = {
    recording: minus(ended, before),
    finalize: minus(finalized, ended),
    recordingWall: (endedAt - started) / 1000,
    finalizeWall: (Date.now() - endedAt) / 1000,
    endReason,
    segments,
    gaps,
    archive: archive === null ? null : { bytes: archive.fileSizeBytes, seconds: archive.lengthSeconds, sha256: archive.sha256 ?? '' },
  };
  await pool.end();
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0)); // the fetcher's idle sockets and stdin would keep it up
}

await main();
