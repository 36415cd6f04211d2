// bench/cli: what a `kura` command costs next to a running `kura serve` (embedded defaults): CPU
// seconds (user + system, of the command's process and anything it waited for) and wall time of
// `kura --help`, `kura follow list` and `kura archive URL` (an HLS playlist on a local server), and
// the wall time of N submissions one after another, as a shell loop runs them.
// Usage: npm run build && npm run bench:cli -- [--runs 5] [--loop 20] [--cli path/to/another/build/dist/src/cli.js]
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawnKura } from '../test/support/cli.js';
import { median } from './capture/bare-ffmpeg.js';
import { cpuSplit } from './proc-usage.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const RUNS = Number(args.get('--runs') ?? 5);
const LOOP = Number(args.get('--loop') ?? 20);
/** Another build's `kura` (its serve and its commands), to compare with this one on the same machine state. */
const CLI_PATH = args.get('--cli');
const CLI = CLI_PATH === undefined ? {} : { cli: path.resolve(CLI_PATH) };

const PLAYLIST = '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:2.0,\nsegment0.ts\n';

/** Runs one command; its CPU (of this process's waited-for children, which it is then) and wall time. */
async function timed(command: string[], env: Record<string, string>, cwd: string): Promise<{ cpu: number; wall: number }> {
  const before = (await cpuSplit(process.pid)).children;
  const started = performance.now();
  const { code, stderr } = await spawnKura(command, env, cwd, CLI).exited;
  const wall = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`kura ${command.join(' ')} exited ${code}: ${stderr}`);
  return { cpu: (await cpuSplit(process.pid)).children - before, wall };
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-cli-'));
  const env = { KURA_DATA_DIR: path.join(root, 'data'), PORT: '0', KURA_ALLOW_PRIVATE_SOURCES: 'true' };
  const playlists = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' }).end(PLAYLIST));
  playlists.listen(0, '127.0.0.1');
  await once(playlists, 'listening');
  const base = `http://127.0.0.1:${(playlists.address() as AddressInfo).port}`;
  const kura = spawnKura(['serve'], env, root, CLI);
  let submitted = 0;
  const archive = () => ['archive', `${base}/stream${submitted++}/index.m3u8`];
  try {
    await kura.waitForLog((line) => line.msg === 'kura api listening');
    console.log(`kura serve (pid ${kura.child.pid}) running; ${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(2)}`);
    for (const [label, command] of [
      ['kura --help', () => ['--help']],
      ['kura follow list', () => ['follow', 'list']],
      ['kura archive URL', archive],
    ] as const) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await timed(command(), env, root));
      const cpu = runs.map((r) => r.cpu);
      const wall = runs.map((r) => r.wall);
      console.log(
        `${label}: median ${median(cpu).toFixed(3)} CPU s (${Math.min(...cpu).toFixed(3)}–${Math.max(...cpu).toFixed(3)}), ` +
          `${median(wall).toFixed(3)} s wall (${Math.min(...wall).toFixed(3)}–${Math.max(...wall).toFixed(3)}) over ${RUNS} runs`,
      );
    }
    const started = performance.now();
    for (let i = 0; i < LOOP; i++) await timed(archive(), env, root);
    console.log(`${LOOP} submissions one after another: ${((performance.now() - started) / 1000).toFixed(2)} s wall`);
  } finally {
    kura.child.kill('SIGTERM');
    await kura.exited;
    playlists.closeAllConnections();
    playlists.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
