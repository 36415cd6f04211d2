// bench/api: Kura's read API against a bare node:http server answering the same bytes (the
// ceiling), measured in the same run with autocannon at 32 connections. Prints req/s, p50/p99 and
// the ratio to the ceiling; exits 1 when /api/stats (a small cached answer) serves less of its
// ceiling than STATS_RATIO_FLOOR. Usage: npm run bench:api [-- --records 100000 --duration 10 --floor 0.7]
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseConfig } from '../src/config/config.js';
import { importLivestreams } from '../src/core/records/import-livestreams.js';
import { startKura, type RunningKura } from '../src/main.js';
import { createLogger } from '../src/wiring/logger.js';
import { readPackageInfo } from '../src/adapters/os/package-info.js';
import { buildRecords } from '../test/support/factories.js';

const run = promisify(execFile);
const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const RECORDS = Number(args.get('--records') ?? 100_000);
const SCALE_RECORDS = Number(args.get('--scale-records') ?? 1_000_000);
const DURATION = Number(args.get('--duration') ?? 10);
const CONNECTIONS = 32;

interface Result {
  rps: number;
  p50: number;
  p99: number;
}

async function autocannon(url: string): Promise<Result> {
  const bin = path.join(readPackageInfo().root, 'node_modules', '.bin', 'autocannon');
  const { stdout } = await run(bin, ['-j', '-c', String(CONNECTIONS), '-d', String(DURATION), '--warmup', '[', '-c', '8', '-d', '2', ']', url], {
    maxBuffer: 64 * 1024 * 1024,
  });
  const report = JSON.parse(stdout.trim().split('\n').at(-1) as string); // the warmup's report comes first
  if (report.non2xx > 0 || report.errors > 0) throw new Error(`${url}: ${report.non2xx} non-2xx, ${report.errors} errors`);
  return { rps: report.requests.average, p50: report.latency.p50, p99: report.latency.p99 };
}

/** A bare node:http server that answers every request with `body`: the most this machine can serve. */
async function ceilingFor(body: Buffer, headers: Record<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function startInstance(dataDir: string, cacheEntries: number): Promise<RunningKura> {
  const config = parseConfig({ KURA_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', KURA_READ_CACHE_ENTRIES: String(cacheEntries) });
  return startKura(config, createLogger(config));
}

/**
 * The least share of the ceiling `/api/stats` (a small cached answer) may serve before the bench
 * fails: issue 52's target. Answered at the front door (decision 0117) it measured 0.79 here, and
 * 0.88 in longer runs (2026-11-30); through Fastify it was 0.41–0.56.
 */
const STATS_RATIO_FLOOR = Number(args.get('--floor') ?? 0.7);

/** Each measured route's share of its ceiling, by label. */
const ratios = new Map<string, number>();

async function measure(label: string, kuraUrl: string): Promise<string> {
  const response = await fetch(kuraUrl);
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = { 'content-type': response.headers.get('content-type') ?? 'application/json' };
  for (const name of ['x-kura-pagination-total', 'x-kura-pagination-has-more']) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const ceiling = await ceilingFor(body, headers);
  const base = await autocannon(ceiling.url);
  await ceiling.close();
  const kura = await autocannon(kuraUrl);
  const ratio = kura.rps / base.rps;
  ratios.set(label, ratio);
  return `| ${label} | ${body.length} | ${base.rps.toFixed(0)} | ${kura.rps.toFixed(0)} | ${(ratio * 100).toFixed(0)}% | ${kura.p50} | ${kura.p99} | ${base.p99} |`;
}

async function load(kura: RunningKura, count: number): Promise<void> {
  const started = Date.now();
  for (let offset = 0; offset < count; offset += 100_000) {
    await importLivestreams(kura.database, buildRecords(Math.min(100_000, count - offset), { offset, unfinishedEvery: 10 }));
  }
  console.log(`imported ${count} records in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // measure the steady state, not autovacuum or the checkpointer catching up with a bulk load
  await kura.database.pool.query('vacuum analyze');
  await kura.database.pool.query('checkpoint');
  await quiet();
}

/** Resolves once this process (the api, its search index catching up with an import) has been idle for a second, or after 3 minutes. */
async function quiet(): Promise<void> {
  for (let waited = 0; waited < 180; waited += 1) {
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const used = process.cpuUsage(before);
    if (used.user + used.system < 50_000) return;
  }
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-'));
  await chmod(root, 0o755);
  const rows: string[] = [];
  try {
    const cached = await startInstance(path.join(root, 'main'), 1000);
    await load(cached, RECORDS);
    const total = Number((await fetch(`${cached.url}/api/history?limit=25`)).headers.get('x-kura-pagination-total'));
    const lastPage = Math.ceil(total / 25) - 1;
    const targets: Array<[string, string]> = [
      ['history first page', '/api/history?limit=25'],
      [`history last page (page=${lastPage})`, `/api/history?limit=25&page=${lastPage}`],
      ['stats', '/api/stats'],
    ];
    for (const [label, route] of targets) rows.push(await measure(`${label}, cached`, `${cached.url}${route}`));
    await cached.stop();

    const uncached = await startInstance(path.join(root, 'main'), 0);
    for (const [label, route] of targets) rows.push(await measure(`${label}, cache off`, `${uncached.url}${route}`));
    await uncached.stop();

    // stats must not grow with the archive: 1k records against SCALE_RECORDS, cached and not
    const scale: Record<string, Result> = {};
    for (const [name, count] of [
      ['1k', 1_000],
      ['large', SCALE_RECORDS],
    ] as const) {
      const dir = path.join(root, name);
      const loader = await startInstance(dir, 0);
      await load(loader, count);
      scale[`${name} cache off`] = await autocannon(`${loader.url}/api/stats`);
      await loader.stop();
      const cachedInstance = await startInstance(dir, 1000);
      scale[`${name} cached`] = await autocannon(`${cachedInstance.url}/api/stats`);
      await cachedInstance.stop();
    }
    console.log(`\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`);
    console.log(`autocannon: ${CONNECTIONS} connections, ${DURATION} s per run after a 2 s warmup; ${RECORDS} records\n`);
    console.log('| route | bytes | ceiling req/s | kura req/s | kura / ceiling | kura p50 ms | kura p99 ms | ceiling p99 ms |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log(`\n| stats | 1k records req/s | ${SCALE_RECORDS} records req/s | time per request, large / 1k |`);
    console.log('|---|---|---|---|');
    for (const mode of ['cached', 'cache off']) {
      const small = scale[`1k ${mode}`] as Result;
      const large = scale[`large ${mode}`] as Result;
      console.log(
        `| ${mode} | ${small.rps.toFixed(0)} (p99 ${small.p99} ms) | ${large.rps.toFixed(0)} (p99 ${large.p99} ms) | ${(small.rps / large.rps).toFixed(2)}× |`,
      );
    }
    const stats = ratios.get('stats, cached') ?? NaN;
    console.log(`\nstats, cached: ${stats.toFixed(2)} of the ceiling (floor ${STATS_RATIO_FLOOR}, target 0.7)`);
    if (!(stats >= STATS_RATIO_FLOOR)) {
      console.error(`bench/api: /api/stats served ${stats.toFixed(2)} of the ceiling, below the floor ${STATS_RATIO_FLOOR}: a request got dearer`);
      process.exitCode = 1;
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
