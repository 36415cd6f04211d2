// bench/finalize: Kura's finalize of a stored capture (remux, duration, thumbnail, sha256, log,
// in this process against a real fs store and an s3rver in a process of its own) against bare
// `ffmpeg -f concat -safe 0 -i list -c copy -movflags +faststart out.mp4` of the same part file,
// in CPU seconds (user + system, this process's threads and the children it waited for), runs
// alternated. The archive's sha256 must equal the bare command's output's.
// Usage: npm run build && node dist/bench/finalize.js [--seconds 60,600] [--runs 5] [--stores fs,s3]
//   [--chunk-mb 64] [--cache DIR]
// The part is bench/capture's stream (720p30 ~3 Mbit/s, 1 s segments, encoded once without -re), its
// segments joined; it is kept in --cache (bench/capture's, by default) across runs.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createSpool } from '../src/adapters/capture/spool.js';
import { createFfmpegTools } from '../src/adapters/media/ffmpeg-tools.js';
import { createFsStore } from '../src/adapters/storage/fs-store.js';
import { createS3Store } from '../src/adapters/storage/s3-store.js';
import type { S3Config } from '../src/config/config.js';
import { CHUNK_META, objectKeys } from '../src/core/archive/object-keys.js';
import type { ArchiveStore } from '../src/core/archive/ports.js';
import type { StoredChunk } from '../src/core/capture/capture.js';
import { finalizeArchive, type FinalizeDeps } from '../src/core/capture/finalize-archive.js';
import type { Livestream } from '../src/core/records/livestream.js';
import { HD } from './capture/context.js';
import { encodedStream, type EncodedStream } from './capture/encoded-stream.js';
import { defaultCacheDir } from './capture/options.js';
import { Meter } from './cpu-meter.js';
import { cpuSplit, minus, type CpuSplit } from './proc-usage.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const SECONDS = (args.get('--seconds') ?? '60,600').split(',').map(Number);
const RUNS = Number(args.get('--runs') ?? 5);
const STORES = (args.get('--stores') ?? 'fs,s3').split(',');
const CHUNK_BYTES = Number(args.get('--chunk-mb') ?? 64) * 1024 * 1024;
const CACHE = path.resolve(args.get('--cache') ?? defaultCacheDir());

interface Parts {
  seconds: number;
  /** The part as the recorder stores it: the segments one after another. */
  part: string;
  /** The bare command's concat list of that part. */
  list: string;
  /** The part cut into chunk files at the first segment boundary past the chunk size, as the recorder seals them. */
  chunks: Array<{ file: string; startOffset: number; endOffset: number }>;
}

function run(program: string, argv: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, argv, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${program} exited ${code}`))));
  });
}

/** The part of a `seconds` long stream (encoded the first time, then cached), and its chunks. */
async function prepareParts(seconds: number): Promise<Parts> {
  const encoded = await encodedStream(CACHE, { ...HD, seconds });
  const list = path.join(encoded.dir, 'list.txt');
  await writeFile(list, `file '${encoded.partFile}'\n`);
  return { seconds, part: encoded.partFile, list, chunks: await cutChunks(encoded) };
}

async function cutChunks(encoded: EncodedStream): Promise<Parts['chunks']> {
  const chunksDir = path.join(encoded.dir, `chunks-${CHUNK_BYTES}`);
  const bounds: Array<{ startOffset: number; endOffset: number }> = [];
  let start = 0;
  let offset = 0;
  for (const segment of encoded.segments) {
    offset += segment.bytes;
    if (offset - start >= CHUNK_BYTES) {
      bounds.push({ startOffset: start, endOffset: offset });
      start = offset;
    }
  }
  if (offset > start) bounds.push({ startOffset: start, endOffset: offset });
  await mkdir(chunksDir, { recursive: true });
  const chunks = bounds.map((b) => ({ ...b, file: path.join(chunksDir, String(b.startOffset).padStart(14, '0')) }));
  for (const chunk of chunks) {
    if ((await stat(chunk.file).catch(() => null))?.size === chunk.endOffset - chunk.startOffset) continue;
    await pipeline(createReadStream(encoded.partFile, { start: chunk.startOffset, end: chunk.endOffset - 1 }), createWriteStream(chunk.file));
  }
  return chunks;
}

/** CPU seconds (user + system) of a command, from GNU time. */
async function timedCpu(command: string[], cwd: string): Promise<number> {
  const report = path.join(cwd, 'time.txt');
  await run('/usr/bin/time', ['-f', '%U %S', '-o', report, ...command]);
  const [user = 0, system = 0] = (await readFile(report, 'utf8')).trim().split('\n').at(-1)!.split(' ').map(Number);
  return user + system;
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const total = (c: CpuSplit) => c.main + c.threads + c.children;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** The capture's chunks put in `store` under its keys, as the recorder's uploads leave them. */
async function storeChunks(store: ArchiveStore, id: string, parts: Parts): Promise<StoredChunk[]> {
  const stored: StoredChunk[] = [];
  for (const chunk of parts.chunks) {
    const key = objectKeys.captureChunk(id, 1, chunk.startOffset, randomBytes(4).toString('hex'));
    await store.put(key, chunk.file, CHUNK_META);
    stored.push({ part: 1, startOffset: chunk.startOffset, endOffset: chunk.endOffset, key });
  }
  return stored;
}

/** Finalize's database ports, in memory: what PostgreSQL would answer for an ended capture of one part. */
function memoryDeps(record: Livestream, parts: Parts, chunks: StoredChunk[], base: Pick<FinalizeDeps, 'media' | 'store' | 'spool'>) {
  const log: string[] = [];
  let archived: Livestream | null = null;
  const capture = {
    livestreamId: record.id,
    playlistUrl: null,
    state: 'ended',
    endReason: 'endlist',
    stopRequested: null,
    workerId: 'bench',
    heartbeatAt: new Date(),
    nextSequence: null,
    currentPart: 1,
    startedAt: new Date(),
    endedAt: new Date(),
  };
  const bytes = parts.chunks.at(-1)!.endOffset;
  const captures = {
    claimFinalize: async () => capture,
    get: async () => capture,
    heartbeat: async () => 'held',
    release: async () => undefined,
    parts: async () => [{ part: 1, bytes, segments: parts.seconds, seconds: parts.seconds }],
    chunks: async () => chunks,
    gaps: async () => [],
    appendLog: async (_id: string, lines: readonly string[]) => void log.push(...lines),
    readLog: async () => log.join('\n'),
    markFinalized: async () => void (capture.state = 'finalized'),
  };
  const livestreams = {
    findById: async () => archived ?? record,
    transition: async (_id: string, event: { archive: Livestream['archive'] }) => (archived = { ...record, status: 'finished', archive: event.archive }),
  };
  const deps = { ...base, captures, livestreams, fetchImage: async () => Buffer.alloc(0) } as unknown as FinalizeDeps;
  return { deps, archived: () => archived };
}

function bareRecord(id: string): Livestream {
  const now = new Date();
  return {
    ...{ id, platform: 'hls', sourceUrl: 'http://127.0.0.1/index.m3u8', status: 'live', failureReason: null, title: 'Bench', channelName: 'Bench' },
    ...{ channelId: 'bench', thumbnailUrl: null, scheduledStart: now, startedAt: now, endedAt: now, archive: null, downloadCount: 0 },
    ...{ integrity: null, requestedQuality: null, submitters: [], takedown: null, pinned: false, createdAt: now, updatedAt: now },
  };
}

async function startS3Process(): Promise<{ config: S3Config; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 's3-process.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const line = await new Promise<string>((resolve) => lines.once('line', resolve));
  return {
    config: JSON.parse(line) as S3Config,
    stop: () =>
      new Promise((resolve) => {
        child.on('close', () => resolve());
        child.stdin.end();
      }),
  };
}

interface Setup {
  name: string;
  store: ArchiveStore;
}

async function finalizeOnce(setup: Setup, parts: Parts, work: string, meter: Meter, n: number) {
  const id = `bench-${parts.seconds}-${n}`;
  const chunks = await storeChunks(setup.store, id, parts);
  const media = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: CHUNK_BYTES });
  const spool = createSpool(path.join(work, 'spool'));
  const { deps, archived } = memoryDeps(bareRecord(id), parts, chunks, { media: meter.wrap('media', media), store: meter.wrap('store', setup.store), spool });
  const before = await cpuSplit(process.pid);
  await finalizeArchive(deps, id, { workerId: 'bench', staleAfterSeconds: 600 });
  const cpu = minus(await cpuSplit(process.pid), before);
  const archive = archived()?.archive;
  if (archive?.sha256 == null) throw new Error(`finalize of ${id} stored no archive`);
  for (const key of [objectKeys.video(id), objectKeys.log(id), objectKeys.thumbnail(id)]) await setup.store.delete(key);
  return { cpu, sha256: archive.sha256, lengthSeconds: archive.lengthSeconds };
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-finalize-'));
  const s3 = STORES.includes('s3') ? await startS3Process() : null;
  try {
    const setups: Setup[] = [];
    if (STORES.includes('fs')) setups.push({ name: 'fs', store: createFsStore(path.join(work, 'archive')) });
    if (s3 !== null) setups.push({ name: 's3', store: createS3Store(s3.config) });
    const all = await Promise.all(SECONDS.map(prepareParts));
    const rows: string[] = [];
    for (const parts of all) {
      const bareOut = path.join(work, 'bare.mp4');
      const bare = [
        'ffmpeg',
        '-hide_banner',
        '-loglevel',
        'error',
        '-nostdin',
        '-y',
        '-f',
        'concat',
        '-safe',
        '0',
        '-i',
        parts.list,
        '-c',
        'copy',
        '-movflags',
        '+faststart',
        bareOut,
      ];
      await timedCpu(bare, work);
      const expected = await sha256(bareOut);
      for (const setup of setups) {
        await finalizeOnce(setup, parts, work, new Meter(), 0); // warm-up: the JIT, the store's connections
        const meter = new Meter();
        const kura: CpuSplit[] = [];
        const bareCpu: number[] = [];
        for (let i = 1; i <= RUNS; i++) {
          const first = i % 2 === 0;
          if (first) bareCpu.push(await timedCpu(bare, work));
          const result = await finalizeOnce(setup, parts, work, meter, i);
          if (result.sha256 !== expected) throw new Error(`${setup.name} ${parts.seconds} s: sha256 ${result.sha256}, bare ffmpeg's ${expected}`);
          kura.push(result.cpu);
          if (!first) bareCpu.push(await timedCpu(bare, work));
        }
        const ordered = [...kura].sort((a, b) => total(a) - total(b));
        const mid = ordered[Math.floor(ordered.length / 2)] as CpuSplit;
        const phases = [...meter.totals]
          .map(([name, cpu]) => `${name} ${(total(cpu) / RUNS).toFixed(3)}`)
          .sort()
          .join(', ');
        const ratio = total(mid) / median(bareCpu);
        rows.push(
          `| ${parts.seconds} s | ${setup.name} | ${(parts.chunks.at(-1)!.endOffset / 1e6).toFixed(0)} | ${median(bareCpu).toFixed(3)} | ${total(mid).toFixed(3)} ` +
            `(main ${mid.main.toFixed(3)}, threads ${mid.threads.toFixed(3)}, children ${mid.children.toFixed(3)}) | **${ratio.toFixed(2)}×** | yes | ${phases} |`,
        );
        console.log(rows.at(-1));
      }
    }
    console.log(
      `\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}; ${RUNS} runs each, medians; chunks of ${CHUNK_BYTES / 1048576} MiB\n`,
    );
    console.log('| stream | store | part MB | bare ffmpeg CPU s | Kura finalize CPU s | ratio | same sha256 | mean CPU s per port call |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    await s3?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
