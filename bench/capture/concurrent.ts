// Section "concurrent": many captures of one live stream at once (one encode served under a URL per
// capture, so each is a record of its own), in one `kura serve` on fs storage; with
// --s3-concurrent N also on S3 storage (s3rver) in one process and in two processes sharing the
// database, each on a disk of its own as separate machines would be.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { probe } from '../../test/support/hls-fixture.js';
import { startS3, type TestS3 } from '../../test/support/s3.js';
import { baselineLines, recordBaselines, type Baselines } from './concurrent-baselines.js';
import { captureEnv, onAir, sleep, type BenchContext } from './context.js';
import { startEmbeddedKura } from './embedded-kura.js';
import { sampleDiskPeak } from './disk-peak.js';
import type { EncodedStream } from './encoded-stream.js';
import { archiveFile, captureStarts, eventLoopLag, gapsOf, openBenchReads, queueArchives, startKura, type KuraServer } from './kura-run.js';
import { serveLive, type LiveStream } from './live-server.js';
import { COST_HEADER, costCells, fixed, section, table, TARGET_HEADER, targetRow } from './markdown.js';
import { childrenByKind, NO_COST, sum, total, type Cost } from './phases.js';
import { sampleProcess, type Timeline } from './process-sampler.js';
import { describeChildren } from './single-figures.js';

interface Setup {
  name: string;
  count: number;
  processes: number;
  storageEnv: Record<string, string>;
  baselines: boolean;
}

interface Outcome {
  setup: Setup;
  finished: number;
  gaps: { ranges: number; segments: number };
  frames: number[];
  lag: { p99Ms: number; maxMs: number };
  peakRssMb: number;
  peakTreeRssMb: number;
  cost: Cost;
  children: Map<string, { runs: number; cpu: number }>;
  storedAfterEndSeconds: number;
  peakSpoolMb: number;
  /** How long `kura archive` took to queue them all (not measured). */
  queueSeconds: number;
  /** Seconds from the stream going on air to each capture starting, sorted. */
  startDelays: number[];
  /** Bare ffmpeg and streamlink, one per capture, recording at the same time (fs, 1 process only). */
  baselines: Baselines | null;
}

export async function runConcurrent(ctx: BenchContext): Promise<void> {
  const stream = await ctx.stream(ctx.options.seconds);
  let s3: TestS3 | null = null;
  const outcomes: Outcome[] = [];
  try {
    const setups: Setup[] = ctx.options.concurrent.map((count) => ({
      name: 'fs storage, 1 process',
      count,
      processes: 1,
      storageEnv: {},
      baselines: count <= ctx.options.baselinesUpTo,
    }));
    if (ctx.options.s3Concurrent > 0) {
      s3 = await startS3();
      for (const processes of [1, 2])
        setups.push({
          name: `S3 (s3rver), ${processes} process${processes > 1 ? 'es' : ''}`,
          count: ctx.options.s3Concurrent,
          processes,
          storageEnv: s3.env,
          baselines: false,
        });
    }
    for (const setup of setups) outcomes.push(await runSetup(ctx, setup, stream));
  } finally {
    await s3?.stop();
  }
  printConcurrent(ctx, stream.encoded, outcomes);
}

async function runSetup(ctx: BenchContext, setup: Setup, stream: { encoded: EncodedStream; bytes: Buffer[] }): Promise<Outcome> {
  const slug = `${setup.storageEnv.KURA_STORAGE ?? 'fs'}_${setup.processes}p_${setup.count}`;
  const live = await serveLive(stream.encoded, stream.bytes, ctx.options.window);
  const dataDir = path.join(ctx.root, `concurrent-${slug}`);
  const extra = { KURA_MAX_CAPTURES: String(Math.ceil(setup.count / setup.processes)), ...setup.storageEnv };
  const kuras: KuraServer[] = [];
  try {
    const { env, envs, databaseUrl } = await startServers(ctx, setup, slug, dataDir, extra, kuras);
    await sleep(10); // the tail of start-up is not the captures'
    const urls = Array.from({ length: setup.count }, (_, i) => live.url(`${slug}-${i}`));
    // announced (a live playlist without segments yet): `kura archive` refuses a 404 playlist
    live.announce();
    const queueStarted = Date.now();
    const ids = await queueArchives(urls, env, ctx.root);
    const queueSeconds = (Date.now() - queueStarted) / 1000;
    const measured = await measure(ctx, { kuras, envs, live, encoded: stream.encoded, databaseUrl, ids, baselines: setup.baselines });
    // an embedded PostgreSQL stops with its server: the archives and rows are read first
    return {
      setup,
      queueSeconds,
      ...measured,
      ...(await archives(ctx, env, databaseUrl, ids)),
      gaps: await gapsOf(databaseUrl, ids),
      startDelays: (await captureStarts(databaseUrl, ids)).map((t) => (t - measured.onAirAt) / 1000).sort((a, b) => a - b),
    };
  } finally {
    for (const k of kuras) await k.stop();
    await live.close();
  }
}

/**
 * One process: `kura serve` on its embedded PostgreSQL, counted with it, as a user runs it; two
 * processes share the bench's external PostgreSQL (not counted), each on a data directory of its own.
 */
async function startServers(ctx: BenchContext, setup: Setup, slug: string, dataDir: string, extra: Record<string, string>, kuras: KuraServer[]) {
  if (setup.processes === 1) {
    const kura = await startEmbeddedKura(dataDir, ctx.root, await ctx.profileDir(`concurrent-${slug}-0`), extra);
    kuras.push(kura.server);
    return { env: kura.env, envs: [kura.env], databaseUrl: kura.databaseUrl };
  }
  const databaseUrl = await ctx.database(`concurrent_${slug}`);
  const env = captureEnv(databaseUrl, dataDir, extra);
  const envs = Array.from({ length: setup.processes }, (_, i) => (i === 0 ? env : { ...env, KURA_DATA_DIR: `${dataDir}-${i}` }));
  for (const [i, each] of envs.entries()) kuras.push(await startKura(each, ctx.root, await ctx.profileDir(`concurrent-${slug}-${i}`)));
  return { env, envs, databaseUrl };
}

interface Run {
  kuras: KuraServer[];
  envs: Array<Record<string, string>>;
  live: LiveStream;
  encoded: EncodedStream;
  databaseUrl: string;
  ids: string[];
  /** Also record the stream with bare ffmpeg and streamlink, one per capture, at the same time. */
  baselines: boolean;
}

/**
 * Plays the stream to the queued captures and measures the processes until the last archive is
 * stored: from all queued, so the time `kura archive` takes to queue them does not count. The
 * baselines start as soon as the stream is on air.
 */
async function measure(ctx: BenchContext, run: Run) {
  const { kuras, envs, live, encoded, databaseUrl, ids } = run;
  const samplers = kuras.map((k) => sampleProcess(k.pid, 50));
  const spools = envs.map((e) => sampleDiskPeak(path.join(e.KURA_DATA_DIR as string, 'spool'), 1000));
  for (const k of kuras) await eventLoopLag(k.metricsUrl as string); // opens the lag window
  live.start();
  const onAirAt = Date.now() + (encoded.segments[0]?.seconds ?? 0) * 1000;
  const baselines = run.baselines ? onAir(live.url('on-air')).then(() => recordBaselines(live, ids.length, ctx.root)) : null;
  await live.ended();
  const endedAt = Date.now();
  const reads = await openBenchReads(databaseUrl);
  try {
    for (const id of ids) await reads.waitStored(id, (ctx.options.seconds + 1200) * 1000).catch(() => null);
  } finally {
    await reads.close();
  }
  const storedAfterEndSeconds = (Date.now() - endedAt) / 1000;
  const lags = await Promise.all(kuras.map((k) => eventLoopLag(k.metricsUrl as string)));
  const timelines = await Promise.all(samplers.map((s) => s.stop()));
  return {
    onAirAt,
    storedAfterEndSeconds,
    lag: { p99Ms: Math.max(...lags.map((l) => l.p99Ms)), maxMs: Math.max(...lags.map((l) => l.maxMs)) },
    peakRssMb: Math.max(...timelines.map((t) => t.peakRssMb)),
    peakTreeRssMb: Math.max(...timelines.map((t) => t.peakTreeRssMb)),
    cost: sum(timelines.map(wholeCost)),
    children: mergeKinds(timelines),
    peakSpoolMb: Math.max(...(await Promise.all(spools.map((s) => s.stop())))) / 1e6,
    baselines: await baselines,
  };
}

/** Video frames of each finished archive, read where it is stored. */
async function archives(ctx: BenchContext, env: Record<string, string>, databaseUrl: string, ids: string[]): Promise<{ finished: number; frames: number[] }> {
  const frames: number[] = [];
  for (const id of ids) {
    const file = await archiveFile(env, databaseUrl, id, ctx.root).catch(() => null);
    if (file === null) continue; // not finished: no archive
    frames.push((await probe(file)).frames);
    if (env.KURA_STORAGE === 's3') await rm(file);
  }
  return { finished: frames.length, frames };
}

function wholeCost(timeline: Timeline): Cost {
  const first = timeline.samples[0];
  const last = timeline.samples.at(-1);
  if (first === undefined || last === undefined) return NO_COST;
  return {
    main: last.main - first.main,
    threads: last.threads - first.threads,
    children: last.waited - first.waited,
    postgres: last.postgres - first.postgres,
  };
}

function mergeKinds(timelines: Timeline[]): Map<string, { runs: number; cpu: number }> {
  const out = new Map<string, { runs: number; cpu: number }>();
  for (const [kind, entry] of timelines.flatMap((t) => [...childrenByKind(t)])) {
    const seen = out.get(kind) ?? { runs: 0, cpu: 0 };
    out.set(kind, { runs: seen.runs + entry.runs, cpu: seen.cpu + entry.cpu });
  }
  return out;
}

function printConcurrent(ctx: BenchContext, encoded: EncodedStream, outcomes: Outcome[]): void {
  const rows = outcomes.map((o) => [
    o.setup.name,
    o.setup.count,
    o.finished,
    `${o.gaps.segments} (${o.gaps.ranges})`,
    o.frames.length === 0 ? '—' : `${Math.min(...o.frames)}–${Math.max(...o.frames)}`,
    o.frames.filter((f) => f === encoded.frames).length,
    o.startDelays.length === 0
      ? '—'
      : `${fixed(o.startDelays[Math.floor(o.startDelays.length / 2)] as number, 1)}; ${fixed(o.startDelays.at(-1) as number, 1)}`,
    `${fixed(o.lag.p99Ms, 1)} (${fixed(o.lag.maxMs, 0)})`,
    `${fixed(o.peakRssMb, 0)}; ${fixed(o.peakTreeRssMb, 0)}`,
    ...costCells(o.cost),
    fixed(total(o.cost) / o.setup.count),
    fixed(o.storedAfterEndSeconds, 0),
    fixed(o.peakSpoolMb, 0),
  ]);
  const kinds = outcomes.map((o) => `- ${o.setup.name}, ${o.setup.count}: children ${describeChildren(o.children)}`);
  const targets = outcomes.flatMap((o) => targetsOf(o, encoded.frames));
  section(`4. Concurrent captures of one ${ctx.options.seconds} s 720p stream (${encoded.frames} frames, window ${ctx.options.window})`, [
    table(
      [
        'setup',
        'captures',
        'finished',
        'missed segments (ranges)',
        'frames per archive',
        'whole archives',
        'capture started, s after on air: median; last',
        'event-loop lag p99 ms (max)',
        'peak RSS MB: node; node + children',
        ...COST_HEADER,
        'CPU s per capture',
        'last archive stored, s after the stream ended',
        'peak spool MB',
      ],
      rows,
    ),
    '',
    ...kinds,
    '',
    table(TARGET_HEADER, targets),
    ...outcomes.flatMap((o) => (o.baselines === null ? [] : ['', ...baselineLines(o.setup.count, o.cost, o.baselines, encoded.frames)])),
  ]);
}

/** Issue 19's targets for one run: nothing missed, every archive whole, lag and memory within bounds. */
function targetsOf(o: Outcome, sourceFrames: number): string[][] {
  const label = `${o.setup.name}, ${o.setup.count} captures`;
  const whole = o.frames.filter((f) => f === sourceFrames).length;
  return [
    targetRow(`missed segments, ${label}`, o.gaps.segments, 0, '', 0),
    [
      `every archive whole (${sourceFrames} frames), ${label}`,
      `${whole} of ${o.setup.count}`,
      `${o.setup.count} of ${o.setup.count}`,
      whole === o.setup.count ? 'met' : '**not met**',
    ],
    targetRow(`event-loop lag p99, ${label}`, o.lag.p99Ms, 50, ' ms', 1),
    targetRow(`peak RSS (node + children), ${label}`, o.peakTreeRssMb, 1024, ' MB', 0),
  ];
}
