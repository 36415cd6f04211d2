// bench/idle: the CPU an idle `kura serve` costs on its embedded defaults: node and the embedded
// PostgreSQL's whole process tree (the postmaster, its background processes and backends, and the
// backends that exited meanwhile), as CPU seconds per second of wall time. CPU seconds, not wall:
// the other load on a shared machine delays the work but barely changes how much there is.
// 1. no follow; 2. with N followed HLS endpoints, local HTTP servers answering 404 (off air), at
//    the default intervals. Each phase is measured in rounds after a settling time; the median is the figure.
// Usage: npm run build && npm run bench:idle -- [--follows 100] [--rounds 3] [--seconds 60] [--settle 60] [--only none|follows]
import { once } from 'node:events';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createFollowRepo } from '../src/adapters/db/follow-repo.js';
import { median } from './capture/bare-ffmpeg.js';
import { spawnKura, type KuraProcess } from '../test/support/cli.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const FOLLOWS = Number(args.get('--follows') ?? 100);
const ROUNDS = Number(args.get('--rounds') ?? 3);
const SECONDS = Number(args.get('--seconds') ?? 60);
const SETTLE_SECONDS = Number(args.get('--settle') ?? 60);
const ONLY = args.get('--only') ?? '';

/** CPU nanoseconds of one process: its living threads (scheduler clock) and its waited-for children (10 ms ticks). */
async function processCpuNs(pid: number): Promise<number> {
  let ns = 0;
  for (const task of await readdir(`/proc/${pid}/task`)) {
    ns += Number((await readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8').catch(() => '0')).split(' ')[0]);
  }
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  // cutime, cstime are [13], [14] after the command: backends that exited are counted in the postmaster's
  return ns + (Number(fields[13]) + Number(fields[14])) * 1e7;
}

/** Every process under `root` (itself included), with its parent. */
async function processTree(root: number): Promise<Map<number, string>> {
  const children = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => null);
    if (stat === null) continue;
    const parent = Number(stat.split(') ')[1]!.split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
  }
  const tree = new Map<number, string>();
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    tree.set(pid, names.get(pid) ?? '?');
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** CPU ns of node (the root) and of PostgreSQL (everything under it). */
async function treeCpu(root: number): Promise<{ node: number; postgres: number }> {
  let node = 0;
  let postgres = 0;
  for (const pid of (await processTree(root)).keys()) {
    const ns = await processCpuNs(pid).catch(() => 0); // gone meanwhile: counted in its parent's children
    if (pid === root) node += ns;
    else postgres += ns;
  }
  return { node, postgres };
}

/** Measures `rounds` windows of `seconds`: node's, PostgreSQL's and the total ms of CPU per second. */
async function measure(kura: KuraProcess, label: string): Promise<void> {
  const pid = kura.child.pid as number;
  await sleep(SETTLE_SECONDS * 1000);
  const rows: Array<{ node: number; postgres: number }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = await treeCpu(pid);
    await sleep(SECONDS * 1000);
    const after = await treeCpu(pid);
    // node's own time counts its exited children too (none when idle); the postmaster's counts the exited backends
    const row = { node: (after.node - before.node) / 1e6 / SECONDS, postgres: (after.postgres - before.postgres) / 1e6 / SECONDS };
    rows.push(row);
    console.log(
      `${label} round ${round + 1}: node ${row.node.toFixed(3)} ms/s, postgres ${row.postgres.toFixed(3)} ms/s, total ${(row.node + row.postgres).toFixed(3)} ms/s`,
    );
  }
  const node = median(rows.map((r) => r.node));
  const postgres = median(rows.map((r) => r.postgres));
  const total = median(rows.map((r) => r.node + r.postgres));
  console.log(
    `${label} median of ${ROUNDS} × ${SECONDS} s: node ${node.toFixed(3)} ms/s, postgres ${postgres.toFixed(3)} ms/s, total ${total.toFixed(3)} ms/s`,
  );
}

/** One HTTP server per endpoint, each on a loopback address of its own (a host of its own to the pacer), answering 404 (off air); the requests counted. */
async function startOffAirServers(count: number): Promise<{ urls: string[]; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const servers = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const server = http.createServer((_request, response) => {
        requests += 1;
        response.writeHead(404).end();
      });
      server.listen(0, `127.0.${Math.floor((i + 2) / 250)}.${((i + 2) % 250) + 1}`);
      await once(server, 'listening');
      return server;
    }),
  );
  return {
    urls: servers.map((server) => {
      const { address, port } = server.address() as AddressInfo;
      return `http://${address}:${port}`;
    }),
    requests: () => requests,
    close: async () => {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}

/** The embedded cluster's connection string, from what `kura serve` left in the data directory. */
async function embeddedUrl(dataDir: string): Promise<string> {
  const password = (await readFile(path.join(dataDir, 'postgres.password'), 'utf8')).trim();
  const port = (await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[3];
  return `postgres://kura:${encodeURIComponent(password)}@127.0.0.1:${port}/kura`;
}

/** Adds `count` HLS endpoint follows, their first checks spread over one default interval. */
async function addFollows(pool: pg.Pool, baseUrls: string[]): Promise<void> {
  const repo = createFollowRepo(pool);
  const now = Date.now();
  const count = baseUrls.length;
  for (let i = 0; i < count; i++) {
    await repo.add({
      id: `idle${String(i).padStart(8, '0')}`,
      kind: 'hls_endpoint',
      url: `${baseUrls[i]}/channel${i}/index.m3u8`,
      channelId: `channel-${i}`,
      channelName: `Channel ${i}`,
      title: null,
      rules: { titleInclude: null, titleExclude: null, membersOnly: 'skip', quality: null },
      createdBy: 'local/bench',
      createdAt: new Date(now),
      signals: [
        { signal: 'playlist', lastCheckedAt: null, lastOkAt: null, lastError: null, lastErrorAt: null, nextCheckAt: new Date(now + (i * 4500) / count) },
      ],
    });
  }
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-idle-'));
  const dataDir = path.join(root, 'data');
  const offAir = await startOffAirServers(FOLLOWS);
  const kura = spawnKura(['serve'], { KURA_DATA_DIR: dataDir, PORT: '0', KURA_ALLOW_PRIVATE_SOURCES: 'true' }, root);
  try {
    await kura.waitForLog((line) => line.msg === 'kura api listening');
    console.log(`kura serve (pid ${kura.child.pid}) on embedded PostgreSQL in ${dataDir}; ${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(2)}`);
    if (ONLY !== 'follows') await measure(kura, 'no follow');
    if (ONLY !== 'none' && FOLLOWS > 0) {
      const pool = new pg.Pool({ connectionString: await embeddedUrl(dataDir), max: 1 });
      await addFollows(pool, offAir.urls);
      await pool.end();
      const before = offAir.requests();
      const started = Date.now();
      await measure(kura, `${FOLLOWS} HLS follows`);
      console.log(`  the endpoints answered ${((offAir.requests() - before) / ((Date.now() - started) / 1000)).toFixed(1)} requests/s`);
    }
  } finally {
    kura.child.kill('SIGTERM');
    const { stderr } = await kura.exited;
    if (stderr.trim() !== '') console.error(stderr.trim());
    await offAir.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
