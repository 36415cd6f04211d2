// bench/read-cache: how often an api process's read cache answers `/api/history` and `/api/queue`
// while 20 records are recording and 20 upcoming ones are watched. The recordings and the looks are
// written as a worker writes them (a segment every 2 s and a lease renewal every 5 s for each
// recording, a look every 5 s for each upcoming record), through Kura's own repositories, by this
// process beside an api-only Kura; autocannon asks at 32 connections. The hit rate is read from the
// api's own counter (`kura_read_cache_requests_total`). `--looks-notify`: each look also notifies as
// migration 0022's trigger did before 0033 (a payload that drops every answer about records), for the
// comparison. Usage: npm run bench:read-cache [-- --duration 10] [--looks-notify]
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseConfig } from '../src/config/config.js';
import { importLivestreams } from '../src/core/records/import-livestreams.js';
import { startKura, type RunningKura } from '../src/main.js';
import { readPackageInfo } from '../src/adapters/os/package-info.js';
import { createLogger } from '../src/wiring/logger.js';
import { buildRecord, buildRecords } from '../test/support/factories.js';

const run = promisify(execFile);
const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const DURATION = Number(args.get('--duration') ?? 10);
const LOOKS_NOTIFY = args.has('--looks-notify');
const RECORDING = 20;
const WATCHED = 20;
const WORKER = 'bench-worker';

/** The cache's counters on the api's /metrics. */
async function counts(url: string): Promise<{ hit: number; miss: number; bypass: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const count = (result: string) => Number(new RegExp(`^kura_read_cache_requests_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { hit: count('hit'), miss: count('miss'), bypass: count('bypass') };
}

async function autocannon(url: string): Promise<number> {
  const bin = path.join(readPackageInfo().root, 'node_modules', '.bin', 'autocannon');
  const { stdout } = await run(bin, ['-j', '-c', '32', '-d', String(DURATION), url], { maxBuffer: 64 * 1024 * 1024 });
  const report = JSON.parse(stdout.trim().split('\n').at(-1) as string);
  if (report.non2xx > 0 || report.errors > 0) throw new Error(`${url}: ${report.non2xx} non-2xx, ${report.errors} errors`);
  return report.requests.average;
}

/** Writes what a worker recording `live` and watching `upcoming` writes, until the returned stop. */
async function workLike(kura: RunningKura, live: string[], upcoming: string[]): Promise<() => Promise<void>> {
  const { captures, watchLooks } = kura.database;
  for (const id of live) {
    if ((await captures.claim(id, WORKER, 60)) === null) throw new Error(`could not claim ${id}`);
    await captures.startPart(id, 0);
  }
  let sequence = 0;
  const timers = [
    setInterval(() => {
      sequence += 1;
      for (const id of live) void captures.recordSegment(id, { sequence, part: 0, endOffset: sequence * 500_000, durationSeconds: 2 }, [`segment ${sequence}`]);
    }, 2_000),
    setInterval(() => {
      for (const id of live) void captures.heartbeat(id, WORKER);
      const now = Date.now();
      for (const id of upcoming) {
        const noted = watchLooks.note(id, { lookedAt: new Date(now), reason: 'not live yet', nextLookAt: new Date(now + 5_000) });
        if (LOOKS_NOTIFY) void noted.then(() => kura.database.pool.query(`select pg_notify('kura_livestreams_changed', '')`));
      }
    }, 5_000),
  ];
  return async () => {
    for (const timer of timers) clearInterval(timer);
  };
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-cache-'));
  await chmod(root, 0o755);
  const config = parseConfig({ KURA_DATA_DIR: root, PORT: '0', LOG_LEVEL: 'warn', KURA_ROLE: 'api' });
  const kura = await startKura(config, createLogger(config));
  try {
    const soon = Date.now() + 3_600_000;
    const live = Array.from({ length: RECORDING }, (_, i) => buildRecord({ id: `live${i}`, status: 'live', finished: false }, 20_000 + i));
    const upcoming = Array.from({ length: WATCHED }, (_, i) =>
      buildRecord({ id: `soon${i}`, status: 'upcoming', finished: false, scheduledStart: new Date(soon + i * 60_000).toISOString() }, 30_000 + i),
    );
    await importLivestreams(kura.database, [...buildRecords(10_000), ...live, ...upcoming]);
    const stop = await workLike(
      kura,
      live.map((r) => r.id),
      upcoming.map((r) => r.id),
    );
    const url = kura.url as string;
    console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}; ${DURATION} s per route, 32 connections`);
    console.log(
      `${RECORDING} recordings (a segment every 2 s each), ${WATCHED} upcoming records looked at every 5 s each${LOOKS_NOTIFY ? ', each look notifying as before 0033' : ''}\n`,
    );
    console.log('| route | req/s | hits | misses | hit rate |');
    console.log('|---|---|---|---|---|');
    for (const route of ['/api/history?limit=25', '/api/queue']) {
      const before = await counts(url);
      const rps = await autocannon(`${url}${route}`);
      const after = await counts(url);
      const [hits, misses] = [after.hit - before.hit, after.miss - before.miss + after.bypass - before.bypass];
      console.log(`| \`${route}\` | ${rps.toFixed(0)} | ${hits} | ${misses} | ${((hits / (hits + misses)) * 100).toFixed(2)}% |`);
    }
    await stop();
  } finally {
    await kura.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
