// The measured half of bench/recorder: one process running N captures with Kura's HLS recorder
// (the real capture repo on a real PostgreSQL, the fs store), started by bench/recorder.ts from
// the build being measured. Prints `ready`, waits for `go` on stdin, records, then prints one JSON
// line: its CPU, event-loop lag, peak RSS and what it recorded (checked byte for byte).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { createHlsRecorder } from '../src/adapters/capture/hls-recorder.js';
import { createSpool } from '../src/adapters/capture/spool.js';
import { freeBytes } from '../src/adapters/os/disk-space.js';
import { createCaptureRepo } from '../src/adapters/db/capture-repo.js';
import { migrateToThisRelease } from '../src/wiring/release.js';
import { createPool } from '../src/adapters/db/pool.js';
import { createFetcher } from '../src/adapters/sources/http-fetch.js';
import { createFsStore } from '../src/adapters/storage/fs-store.js';
import { tuneV8 } from '../src/cli/v8-tuning.js';
import { cpuSplit, minus, peakRssMb } from './proc-usage.js';

export interface RunInput {
  databaseUrl: string;
  dataDir: string;
  /** The playlist URLs to record, one capture each. */
  urls: string[];
  /** sha256 and length of the whole stream: what every capture must hold. */
  expected: { sha256: string; bytes: number };
}

export interface RunResult {
  /** CPU seconds of node's main thread and of its other threads (GC, JIT, libuv pool); `system` is the kernel's share of both. */
  cpu: { main: number; threads: number; system: number };
  /** Of `cpu`, what was spent from the first chunk handed to the store on (with 64 MiB chunks, a short stream is stored at its end). */
  storeCpu: number;
  lagP99Ms: number;
  lagMaxMs: number;
  peakRssMb: number;
  segments: number;
  gaps: number;
  /** Captures whose stored bytes are not the stream's, byte for byte. */
  corrupt: number;
  endReasons: Record<string, number>;
}

/**
 * The histogram counts its own interval in each sample. Kura's own sampling interval (100 ms),
 * not 10 ms: a timer a hundred times a second cost this process 0.35–0.4 CPU s a minute, more than
 * one capture's recording, and was counted as the recorder's (measured 2026-11-26).
 */
const LAG_RESOLUTION_MS = 100;

/** CPU seconds of this process (all threads), read at once. */
function processCpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Kernel CPU seconds of this process (all threads), from /proc. */
async function systemSeconds(): Promise<number> {
  const fields = (await readFile('/proc/self/stat', 'utf8')).split(') ')[1]!.split(' ');
  return Number(fields[12]) / 100; // stime; utime is [11]
}

async function main(): Promise<void> {
  tuneV8('long'); // as `kura serve` does
  const input = JSON.parse(process.argv[2] as string) as RunInput;
  const pool = createPool({ connectionString: input.databaseUrl });
  await migrateToThisRelease(pool);
  const captures = createCaptureRepo(pool);
  const workerId = `bench:${process.pid}`;
  const ids = input.urls.map((_, i) => `bench-${i}`);
  for (const [i, id] of ids.entries()) {
    await pool.query(`insert into livestreams (id, platform, source_url, status, title, scheduled_start_at) values ($1, 'hls', $2, 'live', 'bench', now())`, [
      id,
      input.urls[i],
    ]);
  }
  const claimed = await Promise.all(ids.map((id) => captures.claim(id, workerId, 30)));
  const fsStore = createFsStore(path.join(input.dataDir, 'archive'));
  let firstPutCpu: number | null = null;
  const store: typeof fsStore = {
    ...fsStore,
    put: (...put) => {
      firstPutCpu ??= processCpuSeconds();
      return fsStore.put(...put);
    },
  };
  const recorder = createHlsRecorder({
    captures,
    fetcher: createFetcher({ allowPrivate: true }),
    spool: createSpool(path.join(input.dataDir, 'spool')),
    store,
    freeBytes,
    limits: {
      idleSeconds: 90,
      unreachableSeconds: 600,
      offlineSeconds: 30,
      maxSeconds: 12 * 3600,
      maxBytes: 100e9,
      minFreeBytes: 1024 * 1024 * 1024,
      heartbeatSeconds: 5,
      chunkBytes: 64 * 1024 * 1024,
      chunkSeconds: 0,
      handoverMs: 8000,
    },
  });
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()));

  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  lag.enable();
  const before = await cpuSplit(process.pid);
  const systemBefore = await systemSeconds();
  const reasons = await Promise.all(
    claimed.map((capture, i) =>
      recorder.record({ capture: capture!, playlist: { url: input.urls[i] as string, headers: null, audio: [] }, workerId }, new AbortController().signal),
    ),
  );
  const cpu = minus(await cpuSplit(process.pid), before);
  const system = (await systemSeconds()) - systemBefore;
  const cpuAfter = processCpuSeconds();
  lag.disable();

  const count = async (table: string) => Number((await pool.query(`select count(*) as n from ${table}`)).rows[0].n);
  let corrupt = 0;
  for (const id of ids) {
    const hash = createHash('sha256');
    let bytes = 0;
    for (const chunk of await captures.chunks(id)) {
      const data = await readFile(path.join(input.dataDir, 'archive', chunk.key));
      hash.update(data);
      bytes += data.length;
    }
    if (bytes !== input.expected.bytes || hash.digest('hex') !== input.expected.sha256) corrupt += 1;
  }
  const endReasons: Record<string, number> = {};
  for (const reason of reasons) endReasons[reason] = (endReasons[reason] ?? 0) + 1;
  const result: RunResult = {
    cpu: { main: cpu.main, threads: cpu.threads, system },
    storeCpu: cpuAfter - (firstPutCpu ?? cpuAfter),
    lagP99Ms: lag.percentile(99) / 1e6 - LAG_RESOLUTION_MS,
    lagMaxMs: lag.max / 1e6 - LAG_RESOLUTION_MS,
    peakRssMb: await peakRssMb(process.pid),
    segments: await count('capture_segments'),
    gaps: await count('capture_gaps'),
    corrupt,
    endReasons,
  };
  await pool.end();
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0)); // the fetcher's idle sockets and stdin would keep it up
}

await main();
