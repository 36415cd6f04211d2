// bench/recorder: what recording a live HLS stream costs Kura's recorder alone (no server, no
// jobs, no finalize), for 1 and for N concurrent captures in one process, against bare
// `ffmpeg -live_start_index 0 -i URL -c copy` recording the same stream.
// Usage: npm run build && node dist/bench/recorder.js [--seconds 60] [--concurrent 1,20,100] [--rounds 1]
//        [--trees DIR,DIR] [--node-args 'FLAGS;FLAGS'] [--profile DIR] [--cache DIR]
// --trees: Kura checkouts, each built (dist/bench/recorder-run.js), measured in turn in every
// round (A B A B), so a build before a change and one after it are compared in the same run.
// --node-args: sets of node/V8 flags separated by `;` (an empty set: none), each tried with every
// tree in every round the same way, e.g. `--node-args ';--max-semi-space-size=16'`.
// The stream (1280x720, 30 fps, ~3 Mbit/s, 1 s MPEG-TS segments) is bench/capture's, encoded once
// ahead of time (cached) and served from memory by the clock under one URL per capture; the
// recorder runs on a real PostgreSQL (embedded, its CPU not counted) with the fs store.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/adapters/embedded-postgres/embedded-postgres.js';
import { readPackageInfo } from '../src/adapters/os/package-info.js';
import { HD, onAir } from './capture/context.js';
import { encodedStream } from './capture/encoded-stream.js';
import { loadSegments, serveLive, type LiveStream } from './capture/live-server.js';
import { defaultCacheDir } from './capture/options.js';
import type { RunInput, RunResult } from './recorder-run.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const SECONDS = Number(args.get('--seconds') ?? 60);
const CONCURRENT = (args.get('--concurrent') ?? '1,20').split(',').map(Number);
const ROUNDS = Number(args.get('--rounds') ?? 1);
const TREES = (args.get('--trees') ?? readPackageInfo().root).split(',').map((t) => path.resolve(t));
const NODE_ARGS = (args.get('--node-args') ?? '').split(';').map((set) => set.split(' ').filter((flag) => flag !== ''));
const PROFILE_DIR = args.get('--profile');
const PROFILING = PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`];
/** What is measured in every round: each tree under each set of node flags, named by both. */
const BUILDS = TREES.flatMap((tree) => NODE_ARGS.map((nodeArgs) => ({ tree, nodeArgs, label: [path.basename(tree), ...nodeArgs].join(' ') })));
const CACHE_DIR = path.resolve(args.get('--cache') ?? defaultCacheDir());
/** Segments in the live playlist's sliding window. */
const WINDOW = 10;

/** One measured run of `build`'s recorder on `urls`, in a child process of its own. */
async function runBuild({ tree, nodeArgs }: (typeof BUILDS)[number], input: RunInput, server: LiveStream): Promise<RunResult> {
  const child = spawn(process.execPath, [...nodeArgs, ...PROFILING, path.join(tree, 'dist', 'bench', 'recorder-run.js'), JSON.stringify(input)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let result: RunResult | null = null;
  for await (const line of lines) {
    if (line === 'ready') {
      server.start();
      child.stdin.write('go\n');
    } else if (line.startsWith('{')) result = JSON.parse(line) as RunResult;
    else console.error(line); // what node itself prints (--trace-gc and the like)
  }
  const code = await exited;
  if (result === null) throw new Error(`${tree}: the recorder run exited ${code} without a result`);
  return result;
}

/** Bare ffmpeg recording the same stream to MP4, under GNU time: CPU seconds. */
async function runBareFfmpeg(server: LiveStream, root: string): Promise<number> {
  const report = path.join(root, 'bare-time.txt');
  server.start();
  await onAir(server.url('bare')); // bare ffmpeg gives up on the 404 before the first segment
  const output = path.join(root, 'bare.mp4');
  const ffmpeg = ['ffmpeg', '-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-live_start_index', '0', '-i', server.url('bare'), '-c', 'copy', output];
  const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', report, ...ffmpeg], { stdio: 'inherit' });
  await new Promise((resolve) => child.on('close', resolve));
  const [user, system] = (await readFile(report, 'utf8')).trim().split('\n').at(-1)!.split(' ').map(Number);
  await rm(output, { force: true });
  return (user ?? 0) + (system ?? 0);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return ((sorted[Math.floor(middle)] as number) + (sorted[Math.ceil(middle)] as number)) / 2;
};

async function main(): Promise<void> {
  const stream = await encodedStream(CACHE_DIR, { ...HD, seconds: SECONDS });
  const segments = await loadSegments(stream);
  const whole = Buffer.concat(segments);
  const expected = { sha256: createHash('sha256').update(whole).digest('hex'), bytes: whole.length };
  const segmentCount = stream.segments.length;
  console.log(
    `stream: ${segmentCount} segments, ${(expected.bytes / segmentCount / 1000).toFixed(0)} KB each on average, ${((expected.bytes * 8) / SECONDS / 1e6).toFixed(2)} Mbit/s`,
  );
  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-recorder-'));
  const database = await startEmbeddedPostgres({ dir: path.join(root, 'postgres'), log: () => undefined });
  const admin = new pg.Client({ connectionString: database.connectionString });
  await admin.connect();
  const server = await serveLive(stream, segments, WINDOW);
  const results = new Map<string, RunResult[]>();
  const bare: number[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      bare.push(await runBareFfmpeg(server, root));
      console.log(`round ${round}: bare ffmpeg ${bare.at(-1)?.toFixed(2)} CPU s`);
      for (const n of CONCURRENT) {
        for (const [b, build] of BUILDS.entries()) {
          const name = `kura_bench_${round}_${n}_${b}`;
          await admin.query(`create database ${name}`);
          const dataDir = await mkdtemp(path.join(root, 'data-'));
          const input: RunInput = {
            databaseUrl: database.connectionString.replace(/\/[^/]+$/, `/${name}`),
            dataDir,
            urls: Array.from({ length: n }, (_, i) => server.url(String(i))),
            expected,
          };
          const result = await runBuild(build, input, server);
          console.log(`round ${round}, ${n} captures, ${build.label}: ${JSON.stringify(result)}`);
          const key = `${n}\t${build.label}`;
          results.set(key, [...(results.get(key) ?? []), result]);
          await admin.query(`drop database ${name} with (force)`);
          await rm(dataDir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await server.close();
    await admin.end();
    await database.stop();
    await rm(root, { recursive: true, force: true });
  }
  report(results, median(bare), segmentCount);
}

function report(results: Map<string, RunResult[]>, bare: number, segmentCount: number): void {
  console.log(`\nmedians of ${ROUNDS} round(s); bare ffmpeg -c copy: ${bare.toFixed(2)} CPU s for the whole stream\n`);
  console.log(
    '| captures | build | CPU s (main + other threads; kernel) | of it storing chunks | per capture | ms per segment | ratio to bare ffmpeg | lag p99 / max ms | peak RSS MB | segments | gaps | corrupt |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [key, runs] of results) {
    const [n, build] = key.split('\t') as [string, string];
    const count = Number(n);
    const cpu = median(runs.map((r) => r.cpu.main + r.cpu.threads));
    const main = median(runs.map((r) => r.cpu.main));
    const threads = median(runs.map((r) => r.cpu.threads));
    const system = median(runs.map((r) => r.cpu.system));
    const stored = median(runs.map((r) => r.storeCpu));
    const perCapture = cpu / count;
    // what one more capture costs, beside the process's fixed share (code warming up): against 1 capture of the same build
    const single = results.get(`1\t${build}`);
    const marginal =
      single === undefined || count === 1 ? '' : ` (+${((cpu - median(single.map((r) => r.cpu.main + r.cpu.threads))) / (count - 1)).toFixed(3)} each past 1)`;
    console.log(
      `| ${n} | ${build} | ${cpu.toFixed(2)} (${main.toFixed(2)} + ${threads.toFixed(2)}; ${system.toFixed(2)}) | ${stored.toFixed(2)} | ${perCapture.toFixed(3)}${marginal} | ${((perCapture / segmentCount) * 1000).toFixed(2)} | ${(perCapture / bare).toFixed(2)}× | ${median(runs.map((r) => r.lagP99Ms)).toFixed(1)} / ${median(runs.map((r) => r.lagMaxMs)).toFixed(0)} | ${median(runs.map((r) => r.peakRssMb)).toFixed(0)} | ${Math.min(...runs.map((r) => r.segments))}/${segmentCount * count} | ${Math.max(...runs.map((r) => r.gaps))} | ${Math.max(...runs.map((r) => r.corrupt))} |`,
    );
  }
}

await main();
