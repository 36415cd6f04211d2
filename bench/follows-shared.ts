// bench/follows-shared: several workers (KURA_ROLE=worker, one PostgreSQL) sharing N followed HLS
// endpoints that are all off the air (an endpoint server answering 404, each request noted).
// 1. steady state: each worker's share, the largest gap between two looks at one follow, and the
//    requests per second the endpoints' host received against KURA_FOLLOW_HOST_RATE;
// 2. one worker killed (SIGKILL): how long until each of its follows is looked at again (its
//    follows are taken over when their lease, 300 s, runs out).
// Usage: npm run build && node dist/bench/follows-shared.js [--follows 3000] [--workers 3] [--interval 60]
//        [--rate 3600] [--measure-seconds 180]
import { once } from 'node:events';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { migrateToThisRelease } from '../src/wiring/release.js';
import { startEmbeddedPostgres } from '../src/adapters/embedded-postgres/embedded-postgres.js';
import { spawnKura, type KuraProcess } from '../test/support/cli.js';
import { insertEndpointFollows, slidingMax } from './follow-fixtures.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const FOLLOWS = Number(args.get('--follows') ?? 3000);
const WORKERS = Number(args.get('--workers') ?? 3);
const INTERVAL = Number(args.get('--interval') ?? 60);
const RATE = Number(args.get('--rate') ?? 3600);
const MEASURE_SECONDS = Number(args.get('--measure-seconds') ?? 180);
const LEASE_SECONDS = 300;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** Every endpoint off the air: 404 to each request, whose time is noted by path. */
async function startEndpoints(): Promise<{ url: (i: number) => string; looks: Map<string, number[]>; all: number[]; close(): Promise<void> }> {
  const looks = new Map<string, number[]>();
  const all: number[] = [];
  const server = http.createServer((request, response) => {
    const at = Date.now();
    all.push(at);
    const key = request.url ?? '/';
    looks.set(key, [...(looks.get(key) ?? []), at]);
    response.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: (i) => `http://127.0.0.1:${port}/live/e${i}/index.m3u8`,
    looks,
    all,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-shared-'));
  await chmod(root, 0o755);
  const database = await startEmbeddedPostgres({ dir: path.join(root, 'postgres'), log: () => undefined });
  const pool = new pg.Pool({ connectionString: database.connectionString, max: 4 });
  const endpoints = await startEndpoints();
  const workers: KuraProcess[] = [];
  try {
    await migrateToThisRelease(pool);
    const now = Date.now();
    await insertEndpointFollows(pool, FOLLOWS, endpoints.url, () => new Date(now + Math.random() * INTERVAL * 1000));
    const env = (i: number) => ({
      DATABASE_URL: database.connectionString,
      KURA_DATA_DIR: path.join(root, `worker-${i}`),
      KURA_ROLE: 'worker',
      LOG_LEVEL: 'info', // 'kura worker ready' is an info line
      KURA_ALLOW_PRIVATE_SOURCES: 'true',
      KURA_FOLLOW_POLL_SECONDS: String(INTERVAL),
      KURA_FOLLOW_HOST_RATE: String(RATE),
      KURA_FOLLOW_CONCURRENCY: '20',
    });
    // the first sets pg-boss up on the fresh database; the others start together after it
    workers.push(spawnKura(['serve'], env(0), root));
    await workers[0]?.waitForLog((line) => line.msg === 'kura worker ready');
    for (let i = 1; i < WORKERS; i++) workers.push(spawnKura(['serve'], env(i), root));
    await Promise.all(workers.map((w) => w.waitForLog((line) => line.msg === 'kura worker ready')));
    console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}`);
    console.log(`${FOLLOWS} HLS endpoints off the air, each looked at every ${INTERVAL} s (±10 %), ${WORKERS} workers, KURA_FOLLOW_HOST_RATE=${RATE}\n`);
    // settle: every worker claimed, and a renewal (every 100 s) for any worker past its share
    await sleep(110_000);
    const from = Date.now();
    await sleep(MEASURE_SECONDS * 1000);
    const to = Date.now();
    const { rows: shares } = await pool.query<{ worker: string; n: number }>(
      'select claimed_by as worker, count(*)::int as n from follows where claimed_by is not null group by 1 order by 2 desc',
    );
    const even = FOLLOWS / WORKERS;
    console.log('| worker | follows held | off its even share |');
    console.log('|---|---|---|');
    for (const { worker, n } of shares) console.log(`| ${worker.slice(0, 8)} | ${n} | ${fmt(((n - even) / even) * 100)} % |`);
    let largestGap = 0;
    let unlooked = 0;
    for (let i = 0; i < FOLLOWS; i++) {
      const times = [from, ...(endpoints.looks.get(new URL(endpoints.url(i)).pathname) ?? []).filter((t) => t >= from && t < to), to];
      if (times.length === 2) unlooked += 1;
      for (let k = 1; k < times.length; k++) largestGap = Math.max(largestGap, (times[k] as number) - (times[k - 1] as number));
    }
    const window = endpoints.all.filter((t) => t >= from && t < to);
    console.log(
      `\nlargest gap between two looks at one follow (window ends counted as looks): ${fmt(largestGap / 1000)} s (interval ${INTERVAL} s + 10 % jitter)`,
    );
    console.log(`follows not looked at in ${MEASURE_SECONDS} s: ${unlooked}`);
    console.log(
      `requests to the endpoints' host: ${fmt(window.length / ((to - from) / 1000))}/s mean, most in any 10 s ${slidingMax(window, 10_000)} (allowed ${fmt((RATE / 60) * 10, 0)}); wanted ${fmt(FOLLOWS / INTERVAL)}/s`,
    );

    // one worker killed: its follows are looked at again once their lease ran out
    const { rows: before } = await pool.query<{ id: string; url: string; worker: string }>('select id, url, claimed_by as worker from follows');
    const victim = workers.shift() as KuraProcess;
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await sleep(10_000);
    // the victim's follows: the holder whose follows nobody looked at since the kill
    const lookedSince = (url: string, at: number) => (endpoints.looks.get(new URL(url).pathname) ?? []).some((t) => t >= at);
    const holders = [...new Set(before.map((r) => r.worker))];
    const orphaned = holders
      .map((worker) => before.filter((r) => r.worker === worker))
      .find((held) => held.every((r) => !lookedSince(r.url, killedAt + 2_000))) as Array<{ url: string }> | undefined;
    if (orphaned === undefined) throw new Error('no holder stopped looking after the kill');
    const deadline = killedAt + (LEASE_SECONDS + 2 * INTERVAL) * 1000;
    while (Date.now() < deadline && !orphaned.every((r) => lookedSince(r.url, killedAt + 2_000))) await sleep(2_000);
    const firstLooks = orphaned.map((r) => (endpoints.looks.get(new URL(r.url).pathname) ?? []).find((t) => t >= killedAt + 2_000));
    const missing = firstLooks.filter((t) => t === undefined).length;
    const latest = Math.max(...firstLooks.map((t) => t ?? Infinity));
    console.log(
      `\nworker killed holding ${orphaned.length} follows: all looked at again within ${fmt((latest - killedAt) / 1000)} s of the kill (lease ${LEASE_SECONDS} s); not looked at again: ${missing}`,
    );
  } finally {
    for (const worker of workers) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
    await pool.end();
    await endpoints.close();
    await database.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
