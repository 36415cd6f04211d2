// bench/follow-floor: the node CPU that the HTTP requests alone of N followed HLS endpoints cost, at
// the default interval (4.5 s, ±10 %), through Kura's own fetcher (createFetcher, undici), each
// answered 404 (off air) by a server in another process (so its CPU is not counted): the floor
// under what `kura serve` can cost with N followed endpoints (bench/idle), with no database at all.
// The same windows are measured with the timers alone (no request), to tell the requests from the clock.
// The servers keep an idle connection `--keep-alive` seconds (Node's default: 5, which undici takes as
// 4 and so closes every connection before the next look; nginx's default is 75).
// Usage: npm run build && node dist/bench/follow-floor.js [--follows 100] [--rounds 3] [--seconds 30] [--settle 10] [--keep-alive 5] [--tick 0]
import { fork } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createFetcher, FetchError } from '../src/adapters/sources/http-fetch.js';
import { median } from './capture/bare-ffmpeg.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const FOLLOWS = Number(args.get('--follows') ?? 100);
const ROUNDS = Number(args.get('--rounds') ?? 3);
const SECONDS = Number(args.get('--seconds') ?? 30);
const SETTLE_SECONDS = Number(args.get('--settle') ?? 10);
const KEEP_ALIVE_SECONDS = Number(args.get('--keep-alive') ?? 5);
/** Each look's time rounded to the nearest multiple of this (0: not rounded): looks due close together are made at one wake-up. */
const TICK_MS = Number(args.get('--tick') ?? 0);
const INTERVAL_MS = 4500;

/** The child: one 404 server per endpoint, each on a loopback address of its own (as bench/idle's). */
async function serve(count: number): Promise<void> {
  const urls = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const server = http.createServer((_request, response) => response.writeHead(404).end());
      server.keepAliveTimeout = KEEP_ALIVE_SECONDS * 1000;
      server.listen(0, `127.0.${Math.floor((i + 2) / 250)}.${((i + 2) % 250) + 1}`);
      await once(server, 'listening');
      const { address, port } = server.address() as AddressInfo;
      return `http://${address}:${port}/channel${i}/index.m3u8`;
    }),
  );
  process.send?.(urls);
}

/** Looks at each URL every interval (±10 %), the first looks spread over one; `look` is what a look does. */
function schedule(urls: string[], look: (url: string) => Promise<void>): () => void {
  const timers = new Set<NodeJS.Timeout>();
  const next = (url: string, inMs: number) => {
    const at = Date.now() + inMs;
    if (TICK_MS > 0) inMs = Math.max(0, Math.round(at / TICK_MS) * TICK_MS - Date.now());
    const timer = setTimeout(() => {
      timers.delete(timer);
      void look(url).finally(() => next(url, INTERVAL_MS * (0.9 + 0.2 * Math.random())));
    }, inMs);
    timers.add(timer);
  };
  urls.forEach((url, i) => next(url, (i * INTERVAL_MS) / urls.length));
  return () => timers.forEach((timer) => clearTimeout(timer));
}

/** ms of this process's CPU (every thread) per second, in `ROUNDS` windows after settling; the median. */
async function measure(label: string, counted: () => number): Promise<void> {
  await sleep(SETTLE_SECONDS * 1000);
  const rows: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage();
    const looks = counted();
    const started = process.hrtime.bigint();
    await sleep(SECONDS * 1000);
    const spent = process.cpuUsage(before);
    const wallS = Number(process.hrtime.bigint() - started) / 1e9;
    const row = (spent.user + spent.system) / 1000 / wallS;
    rows.push(row);
    console.log(`${label} round ${round + 1}: ${row.toFixed(3)} ms/s, ${((counted() - looks) / wallS).toFixed(1)} looks/s`);
  }
  console.log(`${label} median of ${ROUNDS} × ${SECONDS} s: ${median(rows).toFixed(3)} ms/s`);
}

async function main(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', String(FOLLOWS), '--keep-alive', String(KEEP_ALIVE_SECONDS)]);
  const [urls] = (await once(child, 'message')) as [string[]];
  const fetcher = createFetcher({ allowPrivate: true });
  let looks = 0;
  try {
    let stop = schedule(urls, async () => {
      looks += 1;
    });
    await measure(`${FOLLOWS} endpoints, timers alone`, () => looks);
    stop();
    looks = 0;
    stop = schedule(urls, async (url) => {
      looks += 1;
      await fetcher.text(url).catch((error: unknown) => {
        if (!(error instanceof FetchError && error.status === 404)) throw error;
      });
    });
    await measure(`${FOLLOWS} endpoints, a GET answered 404 each look (servers keep a connection ${KEEP_ALIVE_SECONDS} s, tick ${TICK_MS} ms)`, () => looks);
    stop();
  } finally {
    child.kill();
  }
}

if (args.has('--serve')) await serve(Number(args.get('--serve')));
else await main();
