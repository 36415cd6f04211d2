// bench/follows: a worker (KURA_ROLE=worker) following N YouTube channels on local fixtures (a feed
// server in YouTube's format, the yt-dlp stand-in), in steady state: nothing new on any channel.
// 1. rate: polls wanted faster than KURA_FOLLOW_HOST_RATE allows; requests per second at the feed
//    server and yt-dlp runs per second, in 10 s windows, against the configured rate.
// 2. idle: the default intervals with the follows' next checks spread over them; the worker's CPU
//    (main thread, other threads, yt-dlp children) and PostgreSQL's, as % of one core.
// Usage: npm run build && node dist/bench/follows.js [--channels 1000] [--seconds 60] [--poll 60] [--rate 300]
//        [--concurrency 20] [--idle-seconds 180] [--idle-rate PER_MINUTE] [--baseline-seconds 30] [--only rate|idle|baseline] [--profile DIR]
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { migrateToThisRelease } from '../src/wiring/release.js';
import { startEmbeddedPostgres } from '../src/adapters/embedded-postgres/embedded-postgres.js';
import { readPackageInfo } from '../src/adapters/os/package-info.js';
import { spawnKura, type KuraProcess } from '../test/support/cli.js';
import { insertFollows, slidingMax, startFeedServer, writeStandInState, ytdlpRuns, type FeedServer } from './follow-fixtures.js';
import { cpuSplit, describe, minus, treeCpuSeconds, type CpuSplit } from './proc-usage.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const CHANNELS = Number(args.get('--channels') ?? 1000);
const RATE_SECONDS = Number(args.get('--seconds') ?? 60);
const POLL_SECONDS = Number(args.get('--poll') ?? 60);
const RATE_PER_MINUTE = Number(args.get('--rate') ?? 300);
const IDLE_SECONDS = Number(args.get('--idle-seconds') ?? 180);
/** KURA_FOLLOW_CONCURRENCY of the rate phase: enough checks at once that the pacer, not yt-dlp's run time, bounds them. */
const RATE_CONCURRENCY = Number(args.get('--concurrency') ?? 20);
/** KURA_FOLLOW_HOST_RATE of the idle phase; default: Kura's default (60/min). */
const IDLE_RATE = args.get('--idle-rate');
const BASELINE_SECONDS = Number(args.get('--baseline-seconds') ?? 30);
const ONLY = args.get('--only') ?? '';
const PROFILE_DIR = args.get('--profile');
const WINDOW_MS = 10_000;
const STAND_IN = path.join(readPackageInfo().root, 'test', 'support', 'bin', 'yt-dlp-stand-in.mjs');

interface Bench {
  root: string;
  pool: pg.Pool;
  feed: FeedServer;
  calls: string;
  /** The environment every worker gets; each phase adds its follow settings. */
  env: Record<string, string>;
  postgresPid: number;
}

async function startWorker(bench: Bench, extra: Record<string, string>, name: string): Promise<KuraProcess> {
  const profiling = PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR, name)}`];
  const worker = spawnKura(['serve'], { ...bench.env, ...extra }, bench.root, { nodeArgs: profiling });
  await worker.waitForLog((line) => line.msg === 'kura worker ready');
  return worker;
}

async function stopWorker(worker: KuraProcess): Promise<void> {
  worker.child.kill('SIGTERM');
  const { stderr } = await worker.exited;
  if (stderr.trim() !== '') console.error(stderr.trim());
}

/** Counts of `times` in consecutive windows of `size` ms from `from` to `to`. */
function windowCounts(times: number[], from: number, to: number, size: number): number[] {
  const counts = Array.from({ length: Math.floor((to - from) / size) }, () => 0);
  for (const t of times) {
    const i = Math.floor((t - from) / size);
    if (t >= from && i < counts.length) counts[i] = (counts[i] ?? 0) + 1;
  }
  return counts;
}

const perSecond = (count: number, ms: number) => (count / ms) * 1000;
const fmt = (n: number, digits = 2) => n.toFixed(digits);

async function checkedSince(pool: pg.Pool, since: Date): Promise<{ follows: number; feed: number; tabs: number; failing: number }> {
  const { rows } = await pool.query(
    `select count(*) filter (where last_checked_at >= $1)::int as follows,
            count(*) filter (where failing_since is not null)::int as failing,
            count(*) filter (where exists (select 1 from jsonb_array_elements(signals) s where s->>'signal' = 'feed' and (s->>'lastCheckedAt')::timestamptz >= $1))::int as feed,
            count(*) filter (where exists (select 1 from jsonb_array_elements(signals) s where s->>'signal' = 'tabs' and (s->>'lastCheckedAt')::timestamptz >= $1))::int as tabs
       from follows`,
    [since],
  );
  return rows[0];
}

/** Phase 1: every follow due at once, polls wanted faster than the host rate allows. */
async function ratePhase(bench: Bench): Promise<void> {
  const now = new Date();
  await insertFollows(bench.pool, CHANNELS, () => now);
  const worker = await startWorker(
    bench,
    {
      KURA_FOLLOW_POLL_SECONDS: String(POLL_SECONDS),
      KURA_FOLLOW_HOST_RATE: String(RATE_PER_MINUTE),
      KURA_FOLLOW_CONCURRENCY: String(RATE_CONCURRENCY),
    },
    'rate',
  );
  const pid = worker.child.pid as number;
  const start = Date.now();
  const cpuBefore = await cpuSplit(pid);
  const runsAt = [await ytdlpRuns(bench.calls)];
  for (let k = 1; k <= Math.floor((RATE_SECONDS * 1000) / WINDOW_MS); k++) {
    await sleep(start + k * WINDOW_MS - Date.now());
    runsAt.push(await ytdlpRuns(bench.calls));
  }
  const end = start + (runsAt.length - 1) * WINDOW_MS;
  const cpu = minus(await cpuSplit(pid), cpuBefore);
  await stopWorker(worker);
  const checked = await checkedSince(bench.pool, new Date(start));

  const allowed = RATE_PER_MINUTE / 60;
  const wanted = CHANNELS / POLL_SECONDS;
  const feedTimes = bench.feed.requests.filter((t) => t >= start && t < end);
  const feedWindows = windowCounts(feedTimes, start, end, WINDOW_MS).map((c) => perSecond(c, WINDOW_MS));
  const runWindows = runsAt.slice(1).map((r, i) => perSecond(r - (runsAt[i] as number), WINDOW_MS));
  const seconds = (end - start) / 1000;
  console.log(
    `\n## rate: ${CHANNELS} follows due at once, KURA_FOLLOW_POLL_SECONDS=${POLL_SECONDS}, KURA_FOLLOW_HOST_RATE=${RATE_PER_MINUTE}, KURA_FOLLOW_CONCURRENCY=${RATE_CONCURRENCY}, ${seconds} s`,
  );
  console.log(`wanted per host: ${fmt(wanted)}/s; allowed: ${fmt(allowed)}/s (${RATE_PER_MINUTE}/min)\n`);
  console.log('| host | requests | mean /s | max 10 s window /s | most in any 1 s | most in any 10 s (allowed + 1) |');
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| feed server (HTTP) | ${feedTimes.length} | ${fmt(perSecond(feedTimes.length, end - start))} | ${fmt(Math.max(...feedWindows))} | ${slidingMax(feedTimes, 1000)} | ${slidingMax(feedTimes, WINDOW_MS)} (${allowed * 10 + 1}) |`,
  );
  const runs = (runsAt.at(-1) as number) - (runsAt[0] as number);
  console.log(`| www.youtube.com (yt-dlp runs) | ${runs} | ${fmt(runs / seconds)} | ${fmt(Math.max(...runWindows))} | – | – |`);
  console.log(`\nfeed req/s per 10 s window: ${feedWindows.map((w) => fmt(w, 1)).join(' ')}`);
  console.log(`yt-dlp runs/s per 10 s window: ${runWindows.map((w) => fmt(w, 1)).join(' ')}`);
  console.log(`follows checked: ${checked.follows} (feed looked ${checked.feed}, tabs looked ${checked.tabs}); failing: ${checked.failing}`);
  console.log(`worker CPU s: ${describe(cpu)}`);
}

async function measure(bench: Bench, pid: number, seconds: number) {
  const before = { worker: await cpuSplit(pid), postgres: await treeCpuSeconds(bench.postgresPid), runs: await ytdlpRuns(bench.calls) };
  const start = Date.now();
  await sleep(seconds * 1000);
  const end = Date.now();
  const worker = minus(await cpuSplit(pid), before.worker);
  const postgres = (await treeCpuSeconds(bench.postgresPid)) - before.postgres;
  const runs = (await ytdlpRuns(bench.calls)) - before.runs;
  const requests = bench.feed.requests.filter((t) => t >= start && t < end).length;
  return { worker, postgres, runs, requests, seconds: (end - start) / 1000, start };
}

const percent = (cpuSeconds: number, seconds: number) => `${fmt((cpuSeconds / seconds) * 100)} %`;

function report(title: string, m: Awaited<ReturnType<typeof measure>>, checked?: Awaited<ReturnType<typeof checkedSince>>): void {
  const own: CpuSplit = m.worker;
  console.log(`\n## ${title}, ${fmt(m.seconds, 0)} s\n`);
  console.log('| process | CPU s | % of one core |');
  console.log('|---|---|---|');
  console.log(`| worker (main thread + other threads) | ${fmt(own.main + own.threads)} | ${percent(own.main + own.threads, m.seconds)} |`);
  console.log(`| — main thread | ${fmt(own.main)} | ${percent(own.main, m.seconds)} |`);
  console.log(`| — other threads | ${fmt(own.threads)} | ${percent(own.threads, m.seconds)} |`);
  console.log(`| yt-dlp stand-in runs (worker's children) | ${fmt(own.children)} | ${percent(own.children, m.seconds)} |`);
  console.log(`| PostgreSQL (postmaster + backends) | ${fmt(m.postgres)} | ${percent(m.postgres, m.seconds)} |`);
  console.log(`\nfeed requests ${m.requests} (${fmt(m.requests / m.seconds)}/s), yt-dlp runs ${m.runs} (${fmt(m.runs / m.seconds, 3)}/s)`);
  if (checked) console.log(`follows checked: ${checked.follows} (feed looked ${checked.feed}, tabs looked ${checked.tabs}); failing: ${checked.failing}`);
}

/** Phase 0: the worker's own cost with no follow (job queue polling, watchdog). */
async function baselinePhase(bench: Bench): Promise<void> {
  await bench.pool.query('delete from follows');
  const worker = await startWorker(bench, {}, 'baseline');
  await sleep(5_000);
  report('baseline: a worker with no follow', await measure(bench, worker.child.pid as number, BASELINE_SECONDS));
  await stopWorker(worker);
}

/** Phase 2: defaults, each follow's signals next due at a random point of their interval (steady state). */
async function idlePhase(bench: Bench): Promise<void> {
  const now = Date.now();
  const intervals = { feed: 600, tabs: 3600 };
  await insertFollows(bench.pool, CHANNELS, (_, signal) => new Date(now + Math.random() * intervals[signal] * 1000));
  const worker = await startWorker(bench, IDLE_RATE === undefined ? {} : { KURA_FOLLOW_HOST_RATE: IDLE_RATE }, 'idle');
  await sleep(5_000);
  const m = await measure(bench, worker.child.pid as number, IDLE_SECONDS);
  await stopWorker(worker);
  report(
    `idle: ${CHANNELS} follows at the default intervals (feed 600 s, tabs 3600 s), ${IDLE_RATE ?? 60}/min a host, next checks spread`,
    m,
    await checkedSince(bench.pool, new Date(m.start)),
  );
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-follows-'));
  await chmod(root, 0o755);
  const postgresDir = path.join(root, 'postgres');
  const database = await startEmbeddedPostgres({ dir: postgresDir, log: () => undefined });
  const feed = await startFeedServer();
  const pool = new pg.Pool({ connectionString: database.connectionString, max: 10 });
  try {
    await migrateToThisRelease(pool);
    const state = path.join(root, 'yt-dlp-state.json');
    const calls = path.join(root, 'yt-dlp-calls.log');
    await writeStandInState(state, CHANNELS, calls);
    const postgresPid = Number((await readFile(path.join(postgresDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const env = {
      DATABASE_URL: database.connectionString,
      KURA_DATA_DIR: path.join(root, 'data'),
      KURA_ROLE: 'worker',
      LOG_LEVEL: 'info',
      KURA_ALLOW_PRIVATE_SOURCES: 'true',
      KURA_YOUTUBE_FEED_URL: feed.url,
      YTDLP_PATH: STAND_IN,
      YTDLP_STAND_IN_STATE: state,
    };
    const bench: Bench = { root, pool, feed, calls, env, postgresPid };
    console.log(
      `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}, load average ${os
        .loadavg()
        .map((l) => fmt(l))
        .join(' ')}`,
    );
    if (BASELINE_SECONDS > 0 && 'baseline'.includes(ONLY)) await baselinePhase(bench);
    if (RATE_SECONDS > 0 && 'rate'.includes(ONLY)) await ratePhase(bench);
    if (IDLE_SECONDS > 0 && 'idle'.includes(ONLY)) await idlePhase(bench);
    console.log(
      `\nload average at the end: ${os
        .loadavg()
        .map((l) => fmt(l))
        .join(' ')}`,
    );
  } finally {
    await pool.end();
    await feed.close();
    await database.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
