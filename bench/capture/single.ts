// Section "single": one short 720p capture by Kura on its embedded PostgreSQL, its whole process
// tree counted (queued → archive stored, by phase), against bare `ffmpeg -live_start_index 0 -i
// URL -c copy` and streamlink recording the same live stream at the same time.
import path from 'node:path';
import { probe } from '../../test/support/hls-fixture.js';
import { recordLiveRuns } from './bare-ffmpeg.js';
import { mbps, onAir, sleep, type BenchContext } from './context.js';
import { resetStatements, startEmbeddedKura, statementTotals, topStatements } from './embedded-kura.js';
import { archiveFile, captureTimes, finalizeMarks, logLines, openBenchReads, queueArchives, type BenchReads } from './kura-run.js';
import { serveLive, type LiveStream } from './live-server.js';
import { childrenByKind, costBetween, steps, total } from './phases.js';
import { sampleProcess, type Sample, type Timeline } from './process-sampler.js';
import { fixed } from './markdown.js';
import { type CaptureCost, type MeasuredCapture } from './single-figures.js';
import { printSingle } from './single-report.js';
import { recordStreamlink, streamlinkVersion } from './streamlink.js';

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
    postgresRoles: rolesBetween(timeline.samples, queuedAt, storedAt),
  };
}

/** PostgreSQL's CPU by role between the samples nearest `from` and `to`. */
function rolesBetween(samples: Sample[], from: number, to: number): Record<string, number> {
  const near = (t: number) => samples.find((s) => s.t >= t) ?? (samples.at(-1) as Sample);
  const [a, b] = [near(from).postgresRoles, near(to).postgresRoles];
  return Object.fromEntries(Object.keys(b).map((role) => [role, (b[role] ?? 0) - (a[role] ?? 0)]));
}

export async function runSingle(ctx: BenchContext): Promise<void> {
  const { encoded, bytes } = await ctx.stream(ctx.options.seconds);
  const live = await serveLive(encoded, bytes, ctx.options.window);
  const extra = { KURA_MAX_CAPTURES: String(Math.max(1, ctx.options.warmUp)) };
  const kura = await startEmbeddedKura(path.join(ctx.root, 'single'), ctx.root, await ctx.profileDir('single'), extra);
  const heading = `${ctx.options.seconds} s of 1280x720 30 fps at ${fixed(mbps(encoded))} Mbit/s (${encoded.frames} frames, ${encoded.segments.length} segments of ${ctx.options.segmentSeconds} s, window ${ctx.options.window})`;
  try {
    await sleep(10); // the tail of start-up (module loading, JIT, GC) is not the capture's
    // the server's first capture pays for compiling the recording path; a server that has
    // recorded before (the steady state of an archive) does not: both are measured
    const run = { live, env: kura.env, databaseUrl: kura.databaseUrl, pid: kura.server.pid };
    const cold = await measureCapture(ctx, run, 'cold');
    // section long runs on the bench's external PostgreSQL: its linearity compares Kura's node tree only
    ctx.singleCaptureCpu = total(cold.cost.total) - cold.cost.total.postgres;
    printSingle(`1. One capture, the server's first: ${heading}`, cold, COLD_LIMIT);
    const warmUp = ctx.options.warmUp;
    if (warmUp > 0) await recordAtOnce(ctx, run, warmUp);
    const warm = await measureCapture(ctx, run, 'warm');
    const which = warmUp === 0 ? "the server's second" : `once the server has recorded ${1 + warmUp}`;
    printSingle(`1w. One capture, ${which} (warm): ${heading}`, warm, WARM_LIMIT);
  } finally {
    await kura.server.stop();
    await live.close();
  }
}

/** Issue 35: Kura's whole tree against streamlink's, a server's first capture and a warm one. */
const COLD_LIMIT = 1.2;
const WARM_LIMIT = 1;

/** The section's live stream and the `kura serve` that records it. */
type SingleRun = { live: LiveStream; env: Record<string, string>; databaseUrl: string; pid: number };

/** `count` captures of the stream at once, to their archives: a server that has recorded a while. */
async function recordAtOnce(ctx: BenchContext, run: SingleRun, count: number): Promise<void> {
  run.live.announce();
  const ids = await queueArchives(
    Array.from({ length: count }, (_, i) => run.live.url(`warm-up-${i}`)),
    run.env,
    ctx.root,
  );
  run.live.start();
  const reads = await openBenchReads(run.databaseUrl);
  try {
    await Promise.all(ids.map((id) => reads.waitStored(id, (ctx.options.seconds + 300) * 1000)));
  } finally {
    await reads.close();
  }
}

/**
 * One capture of the stream from its start, with bare ffmpeg and streamlink (when installed)
 * recording it at the same time (`bareRuns` of each, for a steady median), after sampling the
 * idle server for `--idle-before` seconds.
 */
async function measureCapture(ctx: BenchContext, run: SingleRun, name: string): Promise<MeasuredCapture> {
  // the bench's reads on a connection opened before measuring, its backend not counted as Kura's
  const reads = await openBenchReads(run.databaseUrl);
  try {
    return await measureWith(ctx, run, name, reads);
  } finally {
    await reads.close();
  }
}

async function measureWith(ctx: BenchContext, run: SingleRun, name: string, reads: BenchReads): Promise<MeasuredCapture> {
  const { encoded } = await ctx.stream(ctx.options.seconds);
  const sampler = sampleProcess(run.pid, 10, new Set([reads.pid]));
  const idleFrom = Date.now();
  await sleep(ctx.options.idleBefore);
  const idleTo = Date.now();
  // between the idle window and queueing: in neither
  await resetStatements(run.databaseUrl);
  const sessionsBefore = (await statementTotals(run.databaseUrl)).sessions;
  // `kura archive` refuses a 404 playlist but takes an announced one, watched until on air
  run.live.announce();
  const queuedAt = Date.now();
  const [id] = (await queueArchives([run.live.url(`kura-${name}`)], run.env, ctx.root)) as [string];
  run.live.start();
  await onAir(run.live.url(`bare-${name}-0`));
  const bareRuns = recordLiveRuns(run.live.url, `single-bare-${name}`, ctx.options.bareRuns, ctx.root);
  const streamlinkRuns =
    streamlinkVersion() === null ? null : recordLiveRuns(run.live.url, `single-streamlink-${name}`, ctx.options.bareRuns, ctx.root, recordStreamlink, 'ts');
  const stored = await reads.waitStored(id, (ctx.options.seconds + 300) * 1000);
  const [bare, streamlink] = [await bareRuns, await streamlinkRuns];
  const timeline = await sampler.stop();
  const totals = await statementTotals(run.databaseUrl);
  const cost = await captureCost(timeline, run.databaseUrl, id, queuedAt, stored.at);
  const ours = await probe(await archiveFile(run.env, run.databaseUrl, id, ctx.root));
  const probeAll = (files: string[]) => Promise.all(files.map((f) => probe(f)));
  return {
    cost,
    idle: { seconds: (idleTo - idleFrom) / 1000, cost: costBetween(timeline, idleFrom, idleTo) },
    bare,
    streamlink,
    frames: { source: encoded.frames, ours, bare: await probeAll(bare.files), streamlink: await probeAll(streamlink?.files ?? []) },
    statements: await topStatements(run.databaseUrl, 12),
    // less one of the two connections that read the totals
    totals: { ...totals, sessions: totals.sessions - sessionsBefore - 1 },
  };
}
