// Section "single": one short 720p capture, Kura (queued → archive stored, by phase) against bare
// `ffmpeg -live_start_index 0 -i URL -c copy` recording the same live stream at the same time.
import path from 'node:path';
import { probe } from '../../test/support/hls-fixture.js';
import { recordLiveRuns, type Spread } from './bare-ffmpeg.js';
import { captureEnv, mbps, onAir, sleep, type BenchContext } from './context.js';
import { archiveFile, captureTimes, finalizeMarks, logLines, queueArchives, startKura, waitStored } from './kura-run.js';
import { serveLive, type LiveStream } from './live-server.js';
import { COST_HEADER, costCells, fixed, fixedSpread, section, table, TARGET_HEADER, targetRow } from './markdown.js';
import { byCategory, childrenByKind, costBetween, steps, sum, total, type Cost, type Step } from './phases.js';
import { sampleProcess, type Timeline } from './process-sampler.js';

/** A capture's CPU from queueing to the archive stored, cut into its phases. */
export interface CaptureCost {
  beforeCapture: Cost;
  recording: Cost;
  finalize: Step[];
  /** The finalize's children by kind (helpers such as `fallocate` included). */
  finalizeChildren: Map<string, { runs: number; cpu: number }>;
  total: Cost;
  wall: { queuedToCapturing: number; recording: number; finalize: number; total: number };
  peakRssMb: number;
  peakTreeRssMb: number;
}

/** Prices one capture's phases on its process's timeline, from the marks in Kura's database. */
export async function captureCost(timeline: Timeline, databaseUrl: string, id: string, queuedAt: number, storedAt: number): Promise<CaptureCost> {
  const { startedAt, endedAt } = await captureTimes(databaseUrl, id);
  const marks = finalizeMarks(await logLines(databaseUrl, id), endedAt);
  return {
    beforeCapture: costBetween(timeline, queuedAt, startedAt),
    recording: costBetween(timeline, startedAt, endedAt),
    finalize: steps(timeline, { t: endedAt, name: 'capture ended' }, { t: storedAt, name: 'archive stored' }, marks),
    finalizeChildren: childrenByKind(timeline, endedAt, storedAt),
    total: costBetween(timeline, queuedAt, storedAt),
    wall: {
      queuedToCapturing: (startedAt - queuedAt) / 1000,
      recording: (endedAt - startedAt) / 1000,
      finalize: (storedAt - endedAt) / 1000,
      total: (storedAt - queuedAt) / 1000,
    },
    peakRssMb: timeline.peakRssMb,
    peakTreeRssMb: timeline.peakTreeRssMb,
  };
}

/** The remux's share: the steps in which the remux ffmpeg ran (it and node feeding it and storing its output). */
export const remuxCost = (c: CaptureCost): Cost | null => byCategory(c.finalize).get('remux') ?? null;

export async function runSingle(ctx: BenchContext): Promise<void> {
  const { encoded, bytes } = await ctx.stream(ctx.options.seconds);
  const live = await serveLive(encoded, bytes, ctx.options.window);
  const databaseUrl = await ctx.database('single');
  const env = captureEnv(databaseUrl, path.join(ctx.root, 'single'), { KURA_MAX_CAPTURES: String(Math.max(1, ctx.options.warmUp)) });
  const kura = await startKura(env, ctx.root, await ctx.profileDir('single'));
  const heading = `${ctx.options.seconds} s of 1280x720 30 fps at ${fixed(mbps(encoded))} Mbit/s (${encoded.frames} frames, ${encoded.segments.length} segments of ${ctx.options.segmentSeconds} s, window ${ctx.options.window})`;
  try {
    await sleep(10); // the tail of start-up (module loading, JIT, GC) is not the capture's
    // the server's first capture pays for compiling the recording path; a server that has
    // recorded before (the steady state of an archive) does not: both are measured
    const run = { live, env, databaseUrl, pid: kura.pid };
    const cold = await measureCapture(ctx, run, 'cold');
    ctx.singleCaptureCpu = total(cold.cost.total);
    printSingle(`1. One capture, the server's first: ${heading}`, cold.cost, cold.bare, cold.frames);
    const warmUp = ctx.options.warmUp;
    if (warmUp > 0) await recordAtOnce(ctx, run, warmUp);
    const warm = await measureCapture(ctx, run, 'warm');
    const which = warmUp === 0 ? "the server's second" : `once the server has recorded ${1 + warmUp}`;
    printSingle(`1w. One capture, ${which} (warm): ${heading}`, warm.cost, warm.bare, warm.frames);
  } finally {
    await kura.stop();
    await live.close();
  }
}

/** The section's live stream and the `kura serve` that records it. */
type SingleRun = { live: LiveStream; env: Record<string, string>; databaseUrl: string; pid: number };

/** `count` captures of the stream at once, to their archives: a server that has recorded a while. */
async function recordAtOnce(ctx: BenchContext, run: SingleRun, count: number): Promise<void> {
  run.live.offAir();
  const ids = await queueArchives(
    Array.from({ length: count }, (_, i) => run.live.url(`warm-up-${i}`)),
    run.env,
    ctx.root,
  );
  run.live.start();
  await Promise.all(ids.map((id) => waitStored(run.databaseUrl, id, (ctx.options.seconds + 300) * 1000)));
}

/** One capture of the stream from its start, with bare ffmpeg recording it at the same time (`bareRuns` of them, for a steady median). */
async function measureCapture(ctx: BenchContext, run: SingleRun, name: string) {
  const { encoded } = await ctx.stream(ctx.options.seconds);
  run.live.offAir(); // a stream not on air yet, as each capture's watch first sees it
  const sampler = sampleProcess(run.pid, 10);
  const queuedAt = Date.now();
  const [id] = (await queueArchives([run.live.url(`kura-${name}`)], run.env, ctx.root)) as [string];
  run.live.start();
  await onAir(run.live.url(`bare-${name}-0`));
  const bareRuns = recordLiveRuns(run.live.url, `single-bare-${name}`, ctx.options.bareRuns, ctx.root);
  const stored = await waitStored(run.databaseUrl, id, (ctx.options.seconds + 300) * 1000);
  const bare = await bareRuns;
  const cost = await captureCost(await sampler.stop(), run.databaseUrl, id, queuedAt, stored.at);
  const ours = await probe(await archiveFile(run.env, run.databaseUrl, id, ctx.root));
  const theirs = await probe(bare.file);
  return { cost, bare, frames: { source: encoded.frames, ours, theirs } };
}

function printSingle(title: string, c: CaptureCost, bare: { cpu: Spread; peakRssMb: number }, frames: { source: number; ours: Frames; theirs: Frames }): void {
  const rows = [
    ['queued → capturing (watch until on air, claim)', fixed(c.wall.queuedToCapturing, 1), ...costCells(c.beforeCapture)],
    ['recording (capture started → ended)', fixed(c.wall.recording, 1), ...costCells(c.recording)],
    ...c.finalize.map((s) => [`finalize: ${s.label}`, fixed(s.seconds, 2), ...costCells(s.cost)]),
    ['**Kura, queued → archive stored**', fixed(c.wall.total, 1), ...costCells(c.total).map((v, i) => (i === 0 ? `**${v}**` : v))],
    [`bare ffmpeg -live_start_index 0 -i URL -c copy (median of ${bare.cpu.runs} at once, range)`, '', fixedSpread(bare.cpu), '', '', ''],
  ];
  const categories = [...byCategory(c.finalize)].map(([name, cost]) => [`finalize: ${name}`, ...costCells(cost)]);
  categories.push(['finalize, all', ...costCells(sum(c.finalize.map((s) => s.cost)))]);
  const remux = remuxCost(c);
  const recordingAndRemux = remux === null ? Number.NaN : total(c.recording) + total(remux);
  section(title, [
    table(['phase', 'wall s', ...COST_HEADER], rows),
    '',
    table(['finalize by step kind', ...COST_HEADER], categories),
    '',
    `The finalize's children: ${describeChildren(c.finalizeChildren)}.`,
    '',
    table(
      ['recording', 'video frames', 'duration s', 'peak RSS MB'],
      [
        ['source', frames.source, '', ''],
        ['bare ffmpeg', frames.theirs.frames, fixed(frames.theirs.duration), fixed(bare.peakRssMb, 0)],
        ['Kura (node; node + children)', frames.ours.frames, fixed(frames.ours.duration), `${fixed(c.peakRssMb, 0)}; ${fixed(c.peakTreeRssMb, 0)}`],
      ],
    ),
    '',
    table(TARGET_HEADER, [
      targetRow('Kura total / bare ffmpeg', total(c.total) / bare.cpu.median, 2.5, '×'),
      targetRow('(recording + remux) / bare ffmpeg', recordingAndRemux / bare.cpu.median, 1.5, '×'),
    ]),
    '',
    remux === null
      ? 'No remux ffmpeg child was seen in the finalize: the remux share is unknown.'
      : `Remux = the finalize steps while the remux ffmpeg ran: the child (${fixed(remux.children)} s) and node feeding it the parts and storing its output (${fixed(remux.main + remux.threads)} s).`,
  ]);
}

type Frames = { frames: number; duration: number };

export const describeChildren = (kinds: Map<string, { runs: number; cpu: number }>) =>
  [...kinds].map(([kind, e]) => `${kind} ${fixed(e.cpu)} s (${e.runs} run${e.runs === 1 ? '' : 's'})`).join(', ') || 'none';
