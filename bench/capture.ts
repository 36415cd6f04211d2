// bench/capture: Kura against bare `ffmpeg -live_start_index 0 -i URL -c copy out.mp4` recording the
// same live 720p30 HLS stream in the same run (CPU seconds and peak RSS from GNU time), then 20
// captures of one stream at once, counting missed segments.
// Usage: npm run build && node dist/bench/capture.js [--seconds 60] [--concurrent 20] [--only TEXT] [--profile DIR]
// (--only runs the concurrent setups whose name contains TEXT, e.g. "2 processes")
// (--concurrent 0 skips the concurrent part; --profile writes V8 CPU profiles of the kura processes to DIR)
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { parseConfig, type S3Config } from '../src/config.js';
import { createS3Store } from '../src/adapters/storage/s3-store.js';
import { readPackageInfo } from '../src/package-info.js';
import { cpuSeconds, cpuSplit, describe, idleCpu, minus, peakRssMb, type CpuSplit } from './proc-usage.js';
import { sampleDiskUse } from '../test/support/disk-use.js';
import { startS3 } from '../test/support/s3.js';
import { startEmbeddedPostgres } from '../src/adapters/db/embedded-postgres.js';
import { probe, startHlsFixture, type HlsFixture } from '../test/support/hls-fixture.js';
import { spawnKura, type KuraProcess } from '../test/support/cli.js';
import { waitForRecord } from '../test/support/records.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
/** `eventLoopMonitoringPrecision` in src/http/metrics.ts. */
const EVENT_LOOP_SAMPLING_MS = 100;
const SECONDS = Number(args.get('--seconds') ?? 60);
const CONCURRENT = Number(args.get('--concurrent') ?? 20);
const PROFILE_DIR = args.get('--profile');
const CLI = path.join(readPackageInfo().root, 'dist', 'src', 'cli.js');
// Kura's own PostgreSQL CPU is not counted (bare ffmpeg keeps no database); see RESULTS.md.

interface Usage {
  cpuSeconds: number;
  peakRssMb: number;
}

/** Runs a command under GNU time; resolves with its CPU (user + system, children included) and peak RSS. */
function timed(command: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const report = path.join(cwd, `time-${Date.now()}-${Math.random()}.txt`);
  const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', report, ...command], { env, cwd, stdio: 'ignore' });
  const done = new Promise<Usage>((resolve, reject) => {
    child.on('close', async () => {
      try {
        const [user, system, rssKb] = (await readFile(report, 'utf8')).trim().split('\n').at(-1)!.split(' ').map(Number);
        resolve({ cpuSeconds: (user ?? 0) + (system ?? 0), peakRssMb: (rssKb ?? 0) / 1024 });
      } catch (error) {
        reject(error);
      }
    });
  });
  return { child, done };
}

function run(command: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0] as string, command.slice(1), { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command.join(' ')}: ${err}`))));
  });
}

async function startKura(env: Record<string, string>, cwd: string): Promise<KuraProcess> {
  const profiling = PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`];
  const kura = spawnKura(['serve'], env, cwd, { nodeArgs: profiling });
  await kura.waitForLog((line) => line.msg === 'kura api listening');
  return kura;
}

async function archiveAll(urls: string[], env: Record<string, string>, cwd: string): Promise<string[]> {
  const ids: string[] = [];
  for (const url of urls) {
    const out = await run([process.execPath, CLI, 'archive', url], env, cwd);
    ids.push(/kura: (\S+) is/.exec(out)?.[1] as string);
  }
  return ids;
}

/** Bare ffmpeg gives up on a 404: start it once the stream's playlist exists. */
async function waitForPlaylist(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await fetch(url)).ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never appeared`);
}

interface Phases {
  /** queued → the capture started (watch job, source check, claim) */
  beforeCapture: CpuSplit;
  /** the capture started → it ended (the HLS poller and its database writes) */
  capture: CpuSplit;
  /** the capture ended → the archive is stored (finalize, with its ffmpeg/ffprobe children) */
  finalize: CpuSplit;
}

/**
 * Samples the process's CPU whenever the capture changes phase (polling PostgreSQL every 100 ms
 * from this process, whose CPU is not counted); resolves once the record is finished or failed.
 */
async function cpuByPhase(databaseUrl: string, id: string, pid: number, startCpu: CpuSplit, timeoutMs: number): Promise<Phases> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const marks = new Map<string, CpuSplit>();
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      const { rows } = await client.query('select l.status, c.state from livestreams l left join captures c on c.livestream_id = l.id where l.id = $1', [id]);
      const { status, state } = rows[0] ?? {};
      const phase = status === 'finished' || status === 'failed' ? 'done' : state === 'ended' ? 'finalize' : state === 'capturing' ? 'capture' : null;
      if (phase !== null && !marks.has(phase)) {
        marks.set(phase, await cpuSplit(pid));
        if (process.env.BENCH_DEBUG) console.error(new Date().toISOString(), phase, marks.get(phase));
      }
      if (phase === 'done') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
  const done = marks.get('done');
  if (done === undefined) throw new Error(`record ${id} did not finish in ${timeoutMs} ms`);
  const capture = marks.get('capture') ?? startCpu;
  const finalize = marks.get('finalize') ?? done;
  return { beforeCapture: minus(capture, startCpu), capture: minus(finalize, capture), finalize: minus(done, finalize) };
}

/**
 * The p99 event-loop delay prom-client measured in a running `kura serve` (from its /metrics),
 * less the 100 ms sampling interval Kura gives it (the gauge counts the interval in).
 */
async function eventLoopLagP99Ms(kura: KuraProcess): Promise<number> {
  const line = await kura.waitForLog((l) => l.msg === 'kura api listening');
  const metrics = await fetch(`${line.url as string}/metrics`).then((r) => r.text());
  return Number(/^kura_nodejs_eventloop_lag_p99_seconds\s+([\d.e+-]+)/m.exec(metrics)?.[1] ?? Number.NaN) * 1000 - EVENT_LOOP_SAMPLING_MS;
}

/** Video frames of an archive, read where it is stored (a local file, or the object a download redirects to). */
async function downloadedFrames(env: Record<string, string>, id: string, root: string): Promise<number> {
  if (env.KURA_STORAGE !== 's3') return (await probe(path.join(env.KURA_DATA_DIR as string, 'archive', 'archives', id, `${id}.mp4`))).frames;
  const object = await fetch(await s3ObjectUrl(env, id));
  const file = path.join(root, `${id}.mp4`);
  await writeFile(file, new Uint8Array(await object.arrayBuffer()));
  return (await probe(file)).frames;
}

/** The presigned URL of an archived video, made as Kura makes it. */
async function s3ObjectUrl(env: Record<string, string>, id: string): Promise<string> {
  const store = createS3Store(parseConfig(env).storage as S3Config);
  return (await store.directUrl(`archives/${id}/${id}.mp4`, { contentType: 'video/mp4', contentDisposition: 'attachment' })) as string;
}

async function gapsOf(databaseUrl: string, ids: string[]): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query('select count(*)::int as n from capture_gaps where livestream_id = any($1)', [ids]);
  await client.end();
  return rows[0].n;
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-capture-'));
  await chmod(root, 0o755);
  const database = await startEmbeddedPostgres({ dir: path.join(root, 'postgres'), log: () => undefined });
  const fixtures: HlsFixture[] = [];
  const stops: Array<() => Promise<void>> = [];
  try {
    const env: Record<string, string> = {
      DATABASE_URL: database.connectionString,
      KURA_DATA_DIR: path.join(root, 'data'),
      PORT: '0',
      LOG_LEVEL: 'info',
      KURA_WATCH_POLL_SECONDS: '1',
      KURA_MAX_CAPTURES: '1',
      KURA_CAPTURE_IDLE_SECONDS: '20',
      KURA_ALLOW_PRIVATE_SOURCES: 'true',
    };

    // 1. one 720p30 ~3 Mbit/s stream, Kura and bare ffmpeg side by side
    const hd = await startHlsFixture({ seconds: SECONDS, size: '1280x720', fps: 30, bitrate: '3000k' });
    fixtures.push(hd);
    const kura = await startKura(env, root);
    const kuraPid = kura.child.pid as number;
    // the steady background cost of a running server, once start-up has settled
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const idle = await idleCpu(kuraPid, 20);
    const cpuBefore = await cpuSeconds(kuraPid);
    const splitBefore = await cpuSplit(kuraPid);
    const queuedAt = Date.now();
    const [id] = await archiveAll([hd.url], env, root);
    const phasesDone = cpuByPhase(database.connectionString, id as string, kuraPid, splitBefore, (SECONDS + 120) * 1000);
    const encoded = hd.start();
    await waitForPlaylist(hd.url);
    const bare = timed(
      ['ffmpeg', '-hide_banner', '-loglevel', 'error', '-nostdin', '-live_start_index', '0', '-i', hd.url, '-c', 'copy', '-y', path.join(root, 'bare.mp4')],
      process.env,
      root,
    );
    await encoded;
    const bareUsage = await bare.done;
    const phases = await phasesDone;
    const kuraSeconds = (Date.now() - queuedAt) / 1000;
    // from queueing to the archive being stored: the poller, the database writes, and finalize's ffmpeg
    const kuraUsage: Usage = { cpuSeconds: (await cpuSeconds(kuraPid)) - cpuBefore, peakRssMb: await peakRssMb(kuraPid) };
    kura.child.kill('SIGTERM');
    await kura.exited;
    const ours = await probe(path.join(root, 'data', 'archive', 'archives', id as string, `${id}.mp4`));
    const theirs = await probe(path.join(root, 'bare.mp4'));

    console.log(`\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}; fixture ${SECONDS} s 1280x720 30 fps ~3 Mbit/s\n`);
    console.log('| recorder | CPU s | peak RSS MB | video frames | duration s |');
    console.log('|---|---|---|---|---|');
    console.log(
      `| bare ffmpeg -c copy | ${bareUsage.cpuSeconds.toFixed(2)} | ${bareUsage.peakRssMb.toFixed(0)} | ${theirs.frames} | ${theirs.duration.toFixed(2)} |`,
    );
    console.log(
      `| kura serve (node + its finalize ffmpeg, from queueing to archived) | ${kuraUsage.cpuSeconds.toFixed(2)} | ${kuraUsage.peakRssMb.toFixed(0)} | ${ours.frames} | ${ours.duration.toFixed(2)} |`,
    );
    console.log(`\nKura CPU / bare ffmpeg CPU = ${(kuraUsage.cpuSeconds / bareUsage.cpuSeconds).toFixed(2)}×`);
    const idleRate = idle / 20;
    console.log(
      `\nKura by phase (CPU s): idle server ${idleRate.toFixed(4)} s/s (${(idleRate * kuraSeconds).toFixed(2)} s of the ${kuraSeconds.toFixed(0)} s from queueing to archived);`,
    );
    console.log(`queued → capturing ${describe(phases.beforeCapture)}`);
    console.log(`capturing ${describe(phases.capture)}`);
    console.log(`finalize ${describe(phases.finalize)}`);
    if (CONCURRENT === 0) return;

    // 2. CONCURRENT captures of one stream at once (distinct URLs, so distinct records), on fs
    // storage with one process, on S3 (s3rver) with one, and on S3 with two worker processes
    const s3 = await startS3();
    stops.push(() => s3.stop());
    console.log(`\n${CONCURRENT} concurrent captures of one ${SECONDS} s 720p stream (source ${SECONDS * 30} frames each):\n`);
    console.log(
      '| setup | missed segment ranges | frames per archive (min–max) | Kura CPU s (all processes) | peak RSS MB (largest process) | event-loop lag p99 ms (worst process) | peak spool MB (largest process) |',
    );
    console.log('|---|---|---|---|---|---|---|');
    const setups: Array<[string, Record<string, string>, number]> = [
      ['fs storage, 1 process', {}, 1],
      ['S3 storage (s3rver), 1 process', s3.env, 1],
      ['S3 storage (s3rver), 2 processes', s3.env, 2],
    ];
    for (const [name, storageEnv, processes] of setups.filter(([name]) => name.includes(args.get('--only') ?? ''))) {
      const shared = await startHlsFixture({ seconds: SECONDS, size: '1280x720', fps: 30, bitrate: '3000k' });
      fixtures.push(shared);
      const setupEnv = { ...env, ...storageEnv, KURA_DATA_DIR: path.join(root, `data-${name.replace(/\W+/g, '-')}`) };
      const perProcess = String(Math.ceil(CONCURRENT / processes));
      // each process on a disk of its own, as separate machines run them
      const dataDirs = Array.from({ length: processes }, (_, i) => (i === 0 ? setupEnv.KURA_DATA_DIR : `${setupEnv.KURA_DATA_DIR}-${i}`));
      const spools = dataDirs.map((dir) => sampleDiskUse(path.join(dir, 'spool')));
      const kuras = await Promise.all(dataDirs.map((dir) => startKura({ ...setupEnv, KURA_DATA_DIR: dir, KURA_MAX_CAPTURES: perProcess }, root)));
      const before = await Promise.all(kuras.map((k) => cpuSeconds(k.child.pid as number)));
      const urls = Array.from({ length: CONCURRENT }, (_, i) => `${shared.url}?viewer=${i}&setup=${processes}`);
      const ids = await archiveAll(urls, setupEnv, root);
      await shared.start();
      for (const each of ids)
        await waitForRecord(database.connectionString, each, (r) => r.status === 'finished' || r.status === 'failed', (SECONDS + 180) * 1000);
      const cpu = (await Promise.all(kuras.map((k) => cpuSeconds(k.child.pid as number)))).reduce((sum, c, i) => sum + c - (before[i] as number), 0);
      const rss = Math.max(...(await Promise.all(kuras.map((k) => peakRssMb(k.child.pid as number)))));
      const lag = Math.max(...(await Promise.all(kuras.map((k) => eventLoopLagP99Ms(k)))));
      for (const k of kuras) {
        k.child.kill('SIGTERM');
        await k.exited;
      }
      const spoolPeak = Math.max(...(await Promise.all(spools.map(async (spool) => (await spool.stop()).peak))));
      const missed = await gapsOf(database.connectionString, ids);
      const frames = await Promise.all(ids.map((each) => downloadedFrames(setupEnv, each, root)));
      console.log(
        `| ${name} | ${missed} | ${Math.min(...frames)}–${Math.max(...frames)} | ${cpu.toFixed(1)} | ${rss.toFixed(0)} | ${lag.toFixed(1)} | ${(spoolPeak / 1e6).toFixed(1)} |`,
      );
      await shared.close();
    }
  } finally {
    for (const stop of stops.reverse()) await stop();
    for (const fixture of fixtures) await fixture.close();
    await database.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
