// bench/clips: time to first byte and CPU of a 2-minute clip from a 6-hour archive (issue 54), on the fs
// store and on S3 (s3rver in a process of its own), asked of the real app over HTTP.
// Usage: npm run build && npm run bench:clips -- [--hours 6] [--start 3:00:00] [--end 3:02:00] [--runs 5]
//   [--stores fs,s3] [--cache DIR]
//
// The archive: 10 s of 1280x720 30 fps H.264 (x264 ultrafast, ~800 kbit/s, a keyframe every 2 s, 2
// B-frames) and AAC 48 kHz 128 kbit/s, encoded once as MPEG-TS, then joined to itself with ffmpeg's
// concat demuxer (`-c copy -movflags +faststart`) into one MP4, as finalize makes an archive of TS
// parts: as many samples, and so as large an index (moov), as a real stream of that length. It is kept
// in --cache (os.tmpdir()/kura-bench-clips) across runs.
//
// Each store gets a database of its own on an embedded PostgreSQL, the archive stored as a finished
// record's video (fs: a hard link; S3: a multipart upload), and the app as the tests start it
// (test/support/app.ts: clips wired as `kura serve` wires them), listening on 127.0.0.1 in this
// process. A client in a process of its own (bench/clips-client.ts, so that reading the clip costs
// this process nothing) asks `GET /api/download/{id}/clip`, one warm-up (its clip saved and probed)
// then --runs measured. Measured per clip: time to the response's headers, to its first body byte
// and to its end, the clip's bytes, each `read` of the store and the bytes it handed on (what came
// out of the bucket; the fs store's file is read by ffmpeg itself, not through `read`), CPU of this
// process (`process.cpuUsage`: the app, pg's client, the part server, the S3 client; its main thread
// apart) and of its waited-for children (`cutime + cstime` of /proc/self/stat: ffprobe and ffmpeg),
// and of the s3rver process. ffprobe and ffmpeg are started through a small sh wrapper that notes
// each one's start and end (/proc/uptime, 10 ms), CPU and bytes read (`rchar`: counts read(2) of the
// file, not what a program receives from the part server's socket) as it exits. How busy other
// processes kept the machine meanwhile is read from /proc/stat. The same two commands run bare on
// the local file (`/usr/bin/time`), and ffprobe reading only the index, are the floor.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { access, chmod, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import pg from 'pg';
import { createCaptureRepo } from '../src/adapters/db/capture-repo.js';
import { createLivestreamRepo } from '../src/adapters/db/livestream-repo.js';
import { createPool } from '../src/adapters/db/pool.js';
import { createWatchLookRepo } from '../src/adapters/db/watch-look-repo.js';
import { startEmbeddedPostgres } from '../src/adapters/embedded-postgres/embedded-postgres.js';
import { createFsStore } from '../src/adapters/storage/fs-store.js';
import { createS3Store } from '../src/adapters/storage/s3-store.js';
import type { S3Config } from '../src/config/config.js';
import { objectKeys } from '../src/core/archive/object-keys.js';
import type { ArchiveStore } from '../src/core/archive/ports.js';
import { parseTime } from '../src/core/time-text.js';
import { migrateToThisRelease } from '../src/wiring/release.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { finishedRecord } from '../test/support/archives.js';
import type { TestDatabase } from '../test/support/database.js';
import { headOf } from '../test/support/long-archive.js';
import type { ClientAnswer } from './clips-client.js';

const run = promisify(execFile);
const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const HOURS = Number(args.get('--hours') ?? 6);
const START = args.get('--start') ?? '3:00:00';
const END = args.get('--end') ?? '3:02:00';
const RUNS = Number(args.get('--runs') ?? 5);
const STORES = (args.get('--stores') ?? 'fs,s3').split(',');
const CACHE = path.resolve(args.get('--cache') ?? path.join(os.tmpdir(), 'kura-bench-clips'));
const ID = 'benchClip6h';

/** The piece joined to itself: 10 s, as test/support/long-archive.ts makes it, at a real stream's frame and sample rates. */
const PIECE = {
  seconds: 10,
  video: ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '60', '-keyint_min', '60', '-sc_threshold', '0', '-bf', '2'],
  rate: ['-b:v', '800k', '-maxrate', '800k', '-bufsize', '1600k', '-pix_fmt', 'yuv420p'],
  audio: ['-c:a', 'aac', '-b:a', '128k', '-ar', '48000'],
};

interface Archive {
  file: string;
  bytes: number;
  seconds: number;
  /** Where its index (moov, in front) ends. */
  moovEnd: number;
}

/** The long archive, made the first time (about a minute), then found in the cache. */
async function longArchive(): Promise<Archive> {
  await mkdir(CACHE, { recursive: true });
  const file = path.join(CACHE, `archive-${HOURS}h-720p30-800k.mp4`);
  if ((await stat(file).catch(() => null)) === null) {
    const began = Date.now();
    const piece = path.join(CACHE, 'piece.ts');
    await run('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
      ...['-t', String(PIECE.seconds), ...PIECE.video, ...PIECE.rate, ...PIECE.audio, '-f', 'mpegts', piece],
    ]);
    const list = path.join(CACHE, 'list.txt');
    await writeFile(list, "file 'piece.ts'\n".repeat((HOURS * 3600) / PIECE.seconds));
    const partial = `${file}.partial`;
    await run('ffmpeg', ['-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-movflags', '+faststart', '-f', 'mp4', partial]);
    await rename(partial, file);
    console.log(`made ${file} in ${((Date.now() - began) / 1000).toFixed(0)} s`);
  }
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]);
  return { file, bytes: (await stat(file)).size, seconds: Number(stdout.trim()), moovEnd: (await headOf(file)).moovEnd };
}

/** What the wrapper noted of one ffprobe or ffmpeg run. */
interface ProgramRun {
  program: 'ffprobe' | 'ffmpeg';
  /** /proc/uptime at its start and end (10 ms). */
  began: number;
  ended: number;
  cpu: number;
  /** Bytes it read with read(2) (`rchar`: its file; not what it receives from the part server's socket). */
  read: number;
}

/**
 * `program` started through sh, which notes its times, CPU and bytes read in `log` as it exits (all
 * shell builtins: nothing else the shell starts counts). sh's own reads (this script) are a few
 * hundred bytes, its CPU a millisecond.
 */
async function noted(dir: string, program: 'ffprobe' | 'ffmpeg', log: string): Promise<string> {
  const real = (await run('sh', ['-c', `command -v ${program}`])).stdout.trim();
  const wrapper = path.join(dir, program);
  await writeFile(
    wrapper,
    [
      '#!/bin/sh',
      'read -r began _ < /proc/uptime',
      `${real} "$@"`,
      'code=$?',
      'read -r ended _ < /proc/uptime',
      'read -r self < /proc/$$/stat',
      'rchar=0',
      'while read -r k v; do [ "$k" = rchar: ] && rchar=$v; done < /proc/$$/io',
      `echo "${program} $began $ended $rchar \${self#*) }" >> '${log}'`,
      'exit $code',
      '',
    ].join('\n'),
  );
  await chmod(wrapper, 0o755);
  return wrapper;
}

function readNoted(log: string, from: number): { runs: ProgramRun[]; size: number } {
  const text = readFileSync(log, 'utf8');
  const runs = text
    .slice(from)
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [program, began, ended, read, ...stat] = line.split(' ');
      // after the command: state is [0], cutime and cstime [13] and [14] (the program, waited for by sh)
      const cpu = (Number(stat[13]) + Number(stat[14])) / 100;
      return { program: program as ProgramRun['program'], began: Number(began), ended: Number(ended), cpu, read: Number(read) };
    });
  return { runs, size: Buffer.byteLength(text) };
}

/** CPU seconds (user + system) of this process's waited-for children, from /proc/self/stat. */
function childrenCpu(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** utime + stime of a process (or of one thread: `PID/task/TID`), from /proc. */
function processCpu(pid: number | string): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds the whole machine has been busy (user, nice, system, irq, softirq, steal), from /proc/stat. */
function machineBusy(): number {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return [0, 1, 2, 5, 6, 7].reduce((sum, i) => sum + (ticks[i] ?? 0), 0) / 100;
}

const uptime = () => Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);

/** One `read` of the store: the range asked, and the bytes it handed on (what came out of the bucket or the file). */
interface StoreRead {
  start: number;
  end: number;
  bytes: number;
}

/** The store, each of its reads noted in `reads` (emptied by the caller between clips). */
function counted(store: ArchiveStore): { store: ArchiveStore; reads: StoreRead[] } {
  const reads: StoreRead[] = [];
  return {
    reads,
    store: {
      ...store,
      async read(key, range) {
        const noted: StoreRead = { start: range?.start ?? 0, end: range?.end ?? Number.POSITIVE_INFINITY, bytes: 0 };
        reads.push(noted);
        const stream = await store.read(key, range);
        stream.on('data', (chunk: Buffer) => (noted.bytes += chunk.length));
        return stream;
      },
    },
  };
}

type Clip = ClientAnswer;
type Ask = (url: string, saveTo?: string) => Promise<Clip>;

/** bench/clips-client.ts, started once: `ask` sends it a URL and resolves with its answer. */
function startClient(): { ask: Ask; pid: number; stop(): Promise<void> } {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'clips-client.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting: Array<{ resolve(clip: Clip): void; reject(error: Error): void }> = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(JSON.parse(line) as Clip));
  child.on('close', (code) => waiting.splice(0).forEach((w) => w.reject(new Error(`the client exited with ${code}`))));
  return {
    pid: child.pid as number,
    ask: (url, saveTo) =>
      new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${url}${saveTo === undefined ? '' : ` ${saveTo}`}\n`);
      }),
    stop: () =>
      new Promise((resolve) => {
        child.on('close', () => resolve());
        child.stdin.end();
      }),
  };
}

interface Measured {
  clip: Clip;
  nodeCpu: number;
  /** Of which this process's main thread (the event loop), from /proc (10 ms). */
  mainThreadCpu: number;
  childrenCpu: number;
  s3rverCpu: number | null;
  storeReads: StoreRead[];
  programs: ProgramRun[];
  /** /proc/uptime when the request was sent. */
  sentAt: number;
}

async function startS3Process(): Promise<{ config: S3Config; pid: number; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [path.join(import.meta.dirname, 's3-process.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const line = await new Promise<string>((resolve) => lines.once('line', resolve));
  return {
    config: JSON.parse(line) as S3Config,
    pid: child.pid as number,
    stop: () =>
      new Promise((resolve) => {
        child.on('close', () => resolve());
        child.stdin!.end();
      }),
  };
}

/** A fresh database on the embedded cluster, migrated, as test/support/database.ts makes one from a template. */
async function freshDatabase(serverUrl: string, name: string): Promise<TestDatabase> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = serverUrl.replace(/\/[^/]+$/, `/${name}`);
  const pool = createPool({ connectionString: url, max: 5 });
  await migrateToThisRelease(pool);
  return {
    url,
    pool,
    livestreams: createLivestreamRepo(pool),
    watchLooks: createWatchLookRepo(pool),
    captures: createCaptureRepo(pool),
    async drop() {
      await pool.end();
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database ${name} with (force)`);
      await client.end();
    },
  };
}

interface Setup {
  name: string;
  store: ArchiveStore;
  s3rverPid: number | null;
}

/** The store's app, serving the archive as a finished record; `measure` then asks it for clips. */
async function serveArchive(setup: Setup, archive: Archive, serverUrl: string, work: string, env: Record<string, string>) {
  const began = Date.now();
  const key = objectKeys.video(ID);
  await setup.store.put(key, archive.file, { contentType: 'video/mp4', contentDisposition: 'attachment' });
  console.log(`${setup.name}: archive stored in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  const database = await freshDatabase(serverUrl, `kura_bench_clips_${setup.name}`);
  const facts = { fileSizeBytes: archive.bytes, lengthSeconds: Math.round(archive.seconds), videoKey: key, logKey: null, thumbnailKey: null, sha256: null };
  await database.livestreams.upsertMany([finishedRecord(ID, { ...facts, externalUrl: null })]);
  const { store, reads } = counted(setup.store);
  const spoolDir = path.join(work, `spool-${setup.name}`);
  await mkdir(spoolDir, { recursive: true });
  const kura: TestApp = await startTestApp({}, { env }, { store, database, spoolDir });
  await kura.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = kura.app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/api/download/${ID}/clip?start=${START}&end=${END}`;
  return { kura, url, reads };
}

/** One clip asked of the app by the client, and what it cost. */
async function measure(ask: Ask, url: string, reads: StoreRead[], log: string, s3rverPid: number | null, saveTo?: string): Promise<Measured> {
  const from = readNoted(log, 0).size;
  reads.length = 0;
  const s3Before = s3rverPid === null ? 0 : processCpu(s3rverPid);
  const mainBefore = processCpu(`${process.pid}/task/${process.pid}`);
  const cpuBefore = process.cpuUsage();
  const childrenBefore = childrenCpu();
  const sentAt = uptime();
  const clip = await ask(url, saveTo);
  const cpu = process.cpuUsage(cpuBefore);
  const childrenAfter = childrenCpu();
  const mainAfter = processCpu(`${process.pid}/task/${process.pid}`);
  if (clip.status !== 200) throw new Error(`the clip was answered ${clip.status}`);
  return {
    clip,
    nodeCpu: (cpu.user + cpu.system) / 1e6,
    mainThreadCpu: mainAfter - mainBefore,
    childrenCpu: childrenAfter - childrenBefore,
    s3rverCpu: s3rverPid === null ? null : processCpu(s3rverPid) - s3Before,
    storeReads: reads.map((read) => ({ ...read })),
    programs: readNoted(log, from).runs,
    sentAt,
  };
}

/** The clip the warm-up saved: its streams and length, against the headers and the source. */
async function checkClip(file: string, clip: Clip, startAsked: number): Promise<string> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_name', '-of', 'json', file]);
  const report = JSON.parse(stdout) as { format: { duration: string }; streams: Array<{ codec_name: string }> };
  const seconds = Number(report.format.duration);
  const start = Number(clip.headers['x-kura-clip-start']);
  const length = Number(clip.headers['x-kura-clip-duration']);
  const codecs = report.streams.map((s) => s.codec_name).join('+');
  if (codecs !== 'h264+aac' || Math.abs(seconds - length) > 0.5 || start > startAsked || start < startAsked - 2.1) {
    throw new Error(`the clip is not what was asked: ${codecs}, ${seconds} s long, header start ${start} duration ${length}`);
  }
  return `${codecs}, ${seconds.toFixed(2)} s (header ${length.toFixed(3)} s from ${start.toFixed(3)})`;
}

/** The cutter's two commands run bare on the local file, and ffprobe reading only the index: wall and CPU seconds. */
async function bare(archive: Archive, work: string): Promise<{ name: string; wall: number; cpu: number; rssMb: number }[]> {
  const [start, end] = [parseTime(START) as number, parseTime(END) as number];
  const commands = [
    {
      name: 'ffprobe, index only',
      argv: ['ffprobe', '-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', archive.file],
    },
    {
      name: 'ffprobe, seek landing',
      argv: ['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-read_intervals', `${start.toFixed(3)}%+#1`].concat([
        '-show_entries',
        'packet=pts_time',
        '-of',
        'csv=p=0',
        archive.file,
      ]),
    },
    {
      name: 'ffmpeg, the clip',
      argv: ['ffmpeg', '-hide_banner', '-nostdin', '-loglevel', 'error', '-ss', start.toFixed(3), '-to', end.toFixed(3), '-i', archive.file]
        .concat(['-map', '0:v?', '-map', '0:a?', '-c', 'copy', '-avoid_negative_ts', 'make_zero'])
        .concat(['-f', 'mp4', '-movflags', 'frag_keyframe+empty_moov+default_base_moof', '-y', '/dev/null']),
    },
  ];
  const report = path.join(work, 'time.txt');
  const results: { name: string; wall: number; cpu: number; rssMb: number }[] = [];
  for (const command of commands) {
    const runs: Array<{ wall: number; cpu: number; rssMb: number }> = [];
    for (let i = 0; i < RUNS; i++) {
      await run('/usr/bin/time', ['-f', '%e %U %S %M', '-o', report, ...command.argv]);
      const [wall = 0, user = 0, system = 0, rssKb = 0] = (await readFile(report, 'utf8')).trim().split('\n').at(-1)!.split(' ').map(Number);
      runs.push({ wall, cpu: user + system, rssMb: rssKb / 1024 });
    }
    results.push({ name: command.name, wall: median(runs.map((r) => r.wall)), cpu: median(runs.map((r) => r.cpu)), rssMb: median(runs.map((r) => r.rssMb)) });
  }
  return results;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return ((sorted[Math.floor(middle)] as number) + (sorted[Math.ceil(middle)] as number)) / 2;
};
/** `min / median / max` of a figure over the runs. */
const spread = (values: number[], digits: number, scale = 1) => {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (v: number) => (v * scale).toFixed(digits);
  return `${f(sorted[0] as number)} / **${f(median(sorted))}** / ${f(sorted.at(-1) as number)}`;
};
const mb = (bytes: number) => bytes / 1e6;
const storeBytes = (reads: StoreRead[]) => reads.reduce((sum, read) => sum + read.bytes, 0);

function report(name: string, runs: Measured[]): string[] {
  const lines: string[] = [];
  const row = (figure: string, value: string) => lines.push(`| ${name} | ${figure} | ${value} |`);
  const each = (figure: string, digits: number, value: (r: Measured) => number) => row(figure, spread(runs.map(value), digits));
  /** A figure of the runs of one program in each clip (ffprobe or ffmpeg). */
  const ran = (which: ProgramRun['program'], figure: (p: ProgramRun, r: Measured) => number) => (r: Measured) =>
    r.programs.filter((p) => p.program === which).reduce((sum, p) => sum + figure(p, r), 0);
  each('time to headers, s', 3, (r) => r.clip.headersAt);
  each('time to first byte, s', 3, (r) => r.clip.firstByteAt);
  each('whole clip, s', 3, (r) => r.clip.endAt);
  each(
    '— from the request to ffprobe’s start, s (10 ms)',
    2,
    ran('ffprobe', (p, r) => p.began - r.sentAt),
  );
  each(
    '— ffprobe ran, s (10 ms)',
    2,
    ran('ffprobe', (p) => p.ended - p.began),
  );
  each(
    '— from the request to ffmpeg’s start, s (10 ms)',
    2,
    ran('ffmpeg', (p, r) => p.began - r.sentAt),
  );
  each(
    '— from ffmpeg’s start to the first byte, s (10 ms)',
    2,
    ran('ffmpeg', (p, r) => r.clip.firstByteAt - (p.began - r.sentAt)),
  );
  each('clip, MB', 2, (r) => mb(r.clip.bytes));
  each('read from the store (`read`), MB', 2, (r) => mb(storeBytes(r.storeReads)));
  each('store reads (`read` calls)', 0, (r) => r.storeReads.length);
  // rchar counts read(2), not recv(2): what the programs read from a socket (the part server) is not in it
  if (name === 'fs') {
    each(
      'read by ffprobe from the file, MB',
      2,
      ran('ffprobe', (p) => mb(p.read)),
    );
    each(
      'read by ffmpeg from the file, MB',
      2,
      ran('ffmpeg', (p) => mb(p.read)),
    );
  }
  each('CPU, this process (all threads), s', 3, (r) => r.nodeCpu);
  each('— of which its main thread, s (10 ms)', 2, (r) => r.mainThreadCpu);
  each('CPU, children (ffprobe + ffmpeg), s', 2, (r) => r.childrenCpu);
  each(
    '— of which ffprobe, s',
    2,
    ran('ffprobe', (p) => p.cpu),
  );
  each(
    '— of which ffmpeg, s',
    2,
    ran('ffmpeg', (p) => p.cpu),
  );
  if (runs[0]?.s3rverCpu !== null) each('CPU, s3rver process, s', 2, (r) => r.s3rverCpu ?? 0);
  return lines;
}

/** The store reads of one clip, in order, against what the clip needs: the index, and its media's bytes (as a share of the archive's). */
function describeReads(name: string, run: Measured, archive: Archive): string {
  const start = Number(run.clip.headers['x-kura-clip-start']);
  const media = (archive.bytes * (parseTime(END)! - start)) / archive.seconds;
  const lines = [
    `Store reads of the last ${name} clip (index ends at ${archive.moovEnd}; the clip's media is about ${mb(media).toFixed(2)} MB from about ` +
      `${mb((archive.bytes * start) / archive.seconds).toFixed(0)} MB on; together ${mb(archive.moovEnd + media).toFixed(2)} MB, ` +
      `read ${mb(storeBytes(run.storeReads)).toFixed(2)} MB):`,
    '',
    '| # | range asked, MB from–to | handed on, MB |',
    '|---|---|---|',
  ];
  run.storeReads.forEach((read, i) => lines.push(`| ${i + 1} | ${mb(read.start).toFixed(3)}–${mb(read.end + 1).toFixed(3)} | ${mb(read.bytes).toFixed(3)} |`));
  return lines.join('\n');
}

async function main(): Promise<void> {
  const archive = await longArchive();
  const startAsked = parseTime(START) as number;
  console.log(
    `archive: ${archive.file}, ${(archive.bytes / 1e9).toFixed(2)} GB, ${archive.seconds.toFixed(1)} s, index (moov) ${mb(archive.moovEnd).toFixed(2)} MB`,
  );
  const work = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-clips-'));
  await chmod(work, 0o755); // the embedded PostgreSQL runs as another user
  const log = path.join(work, 'programs.log');
  await writeFile(log, '');
  const env = { FFMPEG_PATH: await noted(work, 'ffmpeg', log), FFPROBE_PATH: await noted(work, 'ffprobe', log) };
  const database = await startEmbeddedPostgres({ dir: path.join(work, 'postgres'), log: () => undefined });
  const s3 = STORES.includes('s3') ? await startS3Process() : null;
  const client = startClient();
  const rows: string[] = [];
  const readsOf: string[] = [];
  try {
    const setups: Setup[] = [];
    if (STORES.includes('fs')) setups.push({ name: 'fs', store: createFsStore(path.join(work, 'archive')), s3rverPid: null });
    if (s3 !== null) setups.push({ name: 's3', store: createS3Store(s3.config), s3rverPid: s3.pid });
    const loads: string[] = [];
    for (const setup of setups) {
      const { kura, url, reads } = await serveArchive(setup, archive, database.connectionString, work, env);
      try {
        const saved = path.join(work, `clip-${setup.name}.mp4`);
        const warm = await measure(client.ask, url, reads, log, setup.s3rverPid, saved);
        console.log(`${setup.name}: warm-up clip ${await checkClip(saved, warm.clip, startAsked)}, first byte after ${warm.clip.firstByteAt.toFixed(3)} s`);
        await rm(saved);
        const runs: Measured[] = [];
        const ours = () => {
          const own = process.cpuUsage();
          const s3rver = setup.s3rverPid === null ? 0 : processCpu(setup.s3rverPid);
          return (own.user + own.system) / 1e6 + childrenCpu() + processCpu(client.pid) + s3rver;
        };
        const before = { wall: performance.now(), busy: machineBusy(), ours: ours() };
        for (let i = 0; i < RUNS; i++) {
          runs.push(await measure(client.ask, url, reads, log, setup.s3rverPid));
          const last = runs.at(-1) as Measured;
          console.log(
            `${setup.name} run ${i + 1}: first byte ${last.clip.firstByteAt.toFixed(3)} s, end ${last.clip.endAt.toFixed(3)} s, ` +
              `store ${mb(storeBytes(last.storeReads)).toFixed(2)} MB, CPU node ${last.nodeCpu.toFixed(3)} children ${last.childrenCpu.toFixed(2)}`,
          );
        }
        rows.push(...report(setup.name, runs));
        const wall = (performance.now() - before.wall) / 1000;
        const others = (machineBusy() - before.busy - (ours() - before.ours)) / wall;
        loads.push(`${setup.name} ${others.toFixed(2)}`);
        const last = runs.at(-1) as Measured;
        if (last.storeReads.length > 0) readsOf.push(describeReads(setup.name, last, archive));
      } finally {
        await kura.close();
        await rm(kura.archiveDir, { recursive: true, force: true });
        await setup.store.delete(objectKeys.video(ID));
      }
    }
    const floor = await bare(archive, work);
    console.log(
      `\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}; clip ${START}–${END} of ${archive.seconds.toFixed(0)} s, ` +
        `${(archive.bytes / 1e9).toFixed(2)} GB, index ${mb(archive.moovEnd).toFixed(2)} MB; ${RUNS} runs each after a warm-up: min / **median** / max; ` +
        `cores other processes (PostgreSQL's among them) kept busy during each store's runs: ${loads.join(', ')}\n`,
    );
    console.log('| store | figure | min / **median** / max |');
    console.log('|---|---|---|');
    for (const row of rows) console.log(row);
    console.log('\nBare, on the local file (medians of the same number of runs, GNU time):\n');
    console.log('| command | wall s | CPU s | peak resident MB |');
    console.log('|---|---|---|---|');
    for (const b of floor) console.log(`| ${b.name} | ${b.wall.toFixed(2)} | ${b.cpu.toFixed(2)} | ${b.rssMb.toFixed(0)} |`);
    for (const text of readsOf) console.log(`\n${text}`);
  } finally {
    await client.stop();
    await s3?.stop();
    await database.stop();
    await rm(work, { recursive: true, force: true });
  }
}

await access('/proc/self/io').catch(() => {
  throw new Error('bench/clips reads /proc (Linux)');
});
await main();
