// Sections "long" (2 and 3): a long 720p capture on fs and on S3 storage (s3rver in the bench
// process, its CPU not counted, like PostgreSQL's). 2: Kura's finalize against bare
// `ffmpeg -f concat -safe 0 -i list -c copy -movflags +faststart` of the same part (the source's
// segments joined, the bytes Kura stores when it misses none), and the two outputs' sha256.
// 3: the whole capture's CPU against the short one's (section single), for linearity.
import path from 'node:path';
import { probe } from '../../test/support/hls-fixture.js';
import { startS3 } from '../../test/support/s3.js';
import { concatFaststart, recordLive, repeated, sha256, type Usage } from './bare-ffmpeg.js';
import { captureEnv, mbps, onAir, sleep, type BenchContext } from './context.js';
import { sampleDiskPeak } from './disk-peak.js';
import type { EncodedStream } from './encoded-stream.js';
import { archiveFile, gapsOf, queueArchives, startKura, waitStored, type KuraServer } from './kura-run.js';
import { serveLive, type LiveStream } from './live-server.js';
import { COST_HEADER, costCells, fixed, section, table, TARGET_HEADER, targetRow } from './markdown.js';
import { sum, total } from './phases.js';
import { sampleProcess } from './process-sampler.js';
import { describeChildren, type CaptureCost } from './single-figures.js';
import { captureCost } from './single.js';

/** The S3 stream starts this long after the fs one, so the two finalizes do not share the CPU. */
const STAGGER_SECONDS = 60;

interface Run {
  name: string;
  env: Record<string, string>;
  databaseUrl: string;
  live: LiveStream;
  kura: KuraServer;
}

interface Measured {
  run: Run;
  cost: CaptureCost;
  sha256: string;
  frames: number;
  gaps: number;
  peakSpoolMb: number;
}

async function prepare(ctx: BenchContext, name: string, storageEnv: Record<string, string>, stream: { encoded: EncodedStream; bytes: Buffer[] }): Promise<Run> {
  const slug = name.split(' ')[0]?.toLowerCase() as string;
  const live = await serveLive(stream.encoded, stream.bytes, ctx.options.window);
  const databaseUrl = await ctx.database(`long_${slug}`);
  const env = captureEnv(databaseUrl, path.join(ctx.root, `long-${slug}`), { KURA_MAX_CAPTURES: '1', ...storageEnv });
  return { name, env, databaseUrl, live, kura: await startKura(env, ctx.root, await ctx.profileDir(`long-${slug}`)) };
}

/** Records the stream from its start, once the run's clock is started; resolves once the archive is stored. */
async function capture(ctx: BenchContext, run: Run, startClock: () => Promise<void>, encoded: EncodedStream): Promise<Measured> {
  const sampler = sampleProcess(run.kura.pid, 20);
  const spool = sampleDiskPeak(path.join(run.env.KURA_DATA_DIR as string, 'spool'), 250);
  const queuedAt = Date.now();
  run.live.announce(); // `kura archive` refuses a 404 playlist
  const [id] = (await queueArchives([run.live.url('kura')], run.env, ctx.root)) as [string];
  await startClock();
  const stored = await waitStored(run.databaseUrl, id, (ctx.options.longSeconds + STAGGER_SECONDS + 600) * 1000);
  const cost = await captureCost(await sampler.stop(), run.databaseUrl, id, queuedAt, stored.at);
  const peakSpoolMb = (await spool.stop()) / 1e6;
  const file = await archiveFile(run.env, run.databaseUrl, id, ctx.root);
  const gaps = (await gapsOf(run.databaseUrl, [id])).segments;
  const frames = (await probe(file)).frames;
  if (frames !== encoded.frames || gaps > 0) console.error(`bench/capture: the ${run.name} capture missed something (${frames} frames, ${gaps} gaps)`);
  return { run, cost, sha256: await sha256(file), frames, gaps, peakSpoolMb };
}

export async function runLong(ctx: BenchContext): Promise<void> {
  const stream = await ctx.stream(ctx.options.longSeconds);
  const { encoded } = stream;
  const s3 = await startS3();
  const runs: Run[] = [];
  try {
    runs.push(await prepare(ctx, 'fs', {}, stream), await prepare(ctx, 'S3 (s3rver)', s3.env, stream));
    await sleep(10); // the tail of start-up is not the capture's
    const [fsRun, s3Run] = runs as [Run, Run];
    let bare: Promise<Usage> | undefined;
    const startFs = async () => {
      fsRun.live.start();
      await onAir(fsRun.live.url('bare'));
      bare = recordLive(fsRun.live.url('bare'), path.join(ctx.root, 'long-bare-live.mp4'), ctx.root);
    };
    const startS3Clock = async () => {
      await sleep(STAGGER_SECONDS);
      s3Run.live.start();
    };
    const measured = await Promise.all([capture(ctx, fsRun, startFs, encoded), capture(ctx, s3Run, startS3Clock, encoded)]);
    if (bare === undefined) throw new Error('bare ffmpeg never started');
    const bareLive = await bare;
    for (const run of runs) await run.kura.stop();
    const reference = await bareRemux(ctx, encoded);
    printLong(ctx, encoded, measured, reference, bareLive);
  } finally {
    for (const run of runs) {
      await run.kura.stop();
      await run.live.close();
    }
    await s3.stop();
  }
}

/** The bare remux of the part, `bareRuns` times: the median CPU, and the output's sha256. */
async function bareRemux(ctx: BenchContext, encoded: EncodedStream): Promise<{ cpu: number; peakRssMb: number; sha256: string; frames: number }> {
  const output = path.join(ctx.root, 'long-bare-remux.mp4');
  const { cpu, peakRssMb } = await repeated(ctx.options.bareRuns, () => concatFaststart([encoded.partFile], output, ctx.root));
  return {
    cpu: cpu.median,
    peakRssMb,
    sha256: await sha256(output),
    frames: (await probe(output)).frames,
  };
}

type Reference = Awaited<ReturnType<typeof bareRemux>>;

function printLong(ctx: BenchContext, encoded: EncodedStream, measured: Measured[], reference: Reference, bareLive: Usage): void {
  const minutes = ctx.options.longSeconds / 60;
  const finalizeOf = (m: Measured) => sum(m.cost.finalize.map((s) => s.cost));
  const rows = measured.map((m) => [
    m.run.name,
    fixed(m.cost.wall.finalize, 1),
    ...costCells(finalizeOf(m)),
    fixed(reference.cpu),
    `${fixed(total(finalizeOf(m)) / reference.cpu)}×`,
    m.sha256 === reference.sha256 ? 'yes' : '**no**',
    `${m.frames} of ${encoded.frames}`,
    m.gaps,
    fixed(m.peakSpoolMb, 1),
  ]);
  const steps = measured.flatMap((m) => m.cost.finalize.map((s) => [m.run.name, s.label, fixed(s.seconds, 2), ...costCells(s.cost)]));
  section(
    `2. Finalize of a ${minutes}-minute capture (${fixed(encoded.bytes / 1e6, 0)} MB at ${fixed(mbps(encoded))} Mbit/s) against bare ffmpeg's remux of the same part`,
    [
      `Bare: \`ffmpeg -f concat -safe 0 -i list -c copy -movflags +faststart out.mp4\` of the source's segments joined (median of ${ctx.options.bareRuns}; ${reference.frames} frames, peak RSS ${fixed(reference.peakRssMb, 0)} MB).\n`,
      table(
        ['storage', 'finalize wall s', ...COST_HEADER, 'bare remux CPU s', 'ratio', 'sha256 = bare output', 'video frames', 'missed segments', 'peak spool MB'],
        rows,
      ),
      '',
      table(['storage', 'finalize step', 'wall s', ...COST_HEADER], steps),
      '',
      ...measured.map((m) => `- ${m.run.name}: the finalize's children: ${describeChildren(m.cost.finalizeChildren)}`),
      '',
      table(TARGET_HEADER, [
        ...measured.map((m) => targetRow(`finalize / bare remux, ${m.run.name}`, total(finalizeOf(m)) / reference.cpu, 1.3, '×')),
        ...measured.map((m) => [
          `archive byte-identical to the bare remux, ${m.run.name}`,
          m.sha256 === reference.sha256 ? 'yes' : '**no**',
          'yes',
          m.sha256 === reference.sha256 ? 'met' : '**not met**',
        ]),
      ]),
    ],
  );
  printLinearity(ctx, measured[0] as Measured, bareLive);
}

function printLinearity(ctx: BenchContext, long: Measured, bareLive: Usage): void {
  const { seconds, longSeconds } = ctx.options;
  const longCpu = total(long.cost.total);
  // 10.5× for 10 minutes against 1: 5% over proportional
  const limit = Number(((longSeconds / seconds) * 1.05).toFixed(2));
  const lines = [
    table(
      ['capture (fs)', 'Kura CPU s, queued → stored', 'per minute of stream', 'bare ffmpeg -c copy, live, CPU s', 'Kura / bare'],
      [
        ...(ctx.singleCaptureCpu === null
          ? []
          : [[`${seconds} s (section 1)`, fixed(ctx.singleCaptureCpu), fixed((ctx.singleCaptureCpu * 60) / seconds), '', '']]),
        [`${longSeconds} s`, fixed(longCpu), fixed((longCpu * 60) / longSeconds), fixed(bareLive.cpuSeconds), `${fixed(longCpu / bareLive.cpuSeconds)}×`],
      ],
    ),
    '',
  ];
  if (ctx.singleCaptureCpu === null) lines.push('Section single did not run: no ratio.');
  else lines.push(table(TARGET_HEADER, [targetRow(`${longSeconds} s capture / ${seconds} s capture`, longCpu / ctx.singleCaptureCpu, limit, '×')]));
  section(`3. Linearity: CPU against the stream's length`, lines);
}
