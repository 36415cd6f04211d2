// bench/fragments: CPU per stream-minute of Kura's fragment path (YouTube's numbered fragments,
// video and audio side by side, then finalize's mux of the two tracks) against Kura's HLS path
// (the same stream as a live HLS playlist, then finalize's remux) and bare ffmpeg, on the same
// content, live by the clock, all at once in one run.
// Usage: npm run build && npm run bench:fragments -- [--seconds 150] [--target 2] [--size 1280x720]
//        [--video-kbps 2500] [--bare-runs 3]
//
// The content: test/support/youtube-fragments.ts's H.264 (x264 ultrafast, constant bitrate with
// filler data, a keyframe each fragment) + AAC 64 kbit/s material, made once (cached under the
// temporary folder). The fragment path reads it from the googlevideo stand-in
// (test/support/googlevideo-stand-in.ts), whose head grows one fragment per `--target` seconds; the
// HLS path and bare ffmpeg read the same encoded frames joined into MPEG-TS segments of the same
// length (`ffmpeg -c copy`, as YouTube's HLS formats are MPEG-TS), served by bench/capture's live
// server (segment i published once it would have been finished live). Both go on air at the same
// instant. Each Kura path runs in a child process of its own (bench/fragments-run.ts, the recorder
// and finalizeArchive in-process on the bench's embedded PostgreSQL, the fs store), as
// bench/recorder does; PostgreSQL's CPU is not counted (neither bench/capture nor bench/recorder
// counts it). Bare ffmpeg (`ffmpeg -live_start_index 0 -i PLAYLIST -c copy out.mp4`, `--bare-runs`
// of them at once, each under its own URL) records the same live playlist at the same time; after
// the broadcast, ffmpeg muxes the two fragment tracks as served (what yt-dlp's merger runs) as many
// times. CPU: user + system from /proc (Kura: its threads and its waited-for children, ffmpeg and
// ffprobe) and from GNU time (bare ffmpeg).
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { access, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/adapters/embedded-postgres/embedded-postgres.js';
import type { FragmentedStream, FragmentFormat } from '../src/core/sources/ports.js';
import { readPackageInfo } from '../src/adapters/os/package-info.js';
import type { Googlevideo } from '../test/support/googlevideo-stand-in.js';
import { makeFragments, type FragmentMaterial, type FragmentRepresentation } from '../test/support/youtube-fragments.js';
import { onAir } from './capture/context.js';
import type { EncodedStream } from './capture/encoded-stream.js';
import { loadSegments, serveLive } from './capture/live-server.js';
import type { FragmentsRunInput, FragmentsRunResult } from './fragments-run.js';
import type { CpuSplit } from './proc-usage.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const SECONDS = Number(args.get('--seconds') ?? 150);
const TARGET = Number(args.get('--target') ?? 2) as 1 | 2 | 5;
const [WIDTH, HEIGHT] = (args.get('--size') ?? '1280x720').split('x').map(Number) as [number, number];
const VIDEO_BITRATE = Number(args.get('--video-kbps') ?? 2500) * 1000;
const BARE_RUNS = Number(args.get('--bare-runs') ?? 3);
const VIDEO_ID = 'kuraBenchFr';
/** The live playlist's sliding window: a minute of segments. */
const WINDOW = Math.ceil(60 / TARGET);

const total = (c: CpuSplit) => c.main + c.threads + c.children;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return ((sorted[Math.floor(middle)] as number) + (sorted[Math.ceil(middle)] as number)) / 2;
};

function run(program: string, argv: string[], cwd?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, argv, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${program} exited ${code}`))));
  });
}

/** CPU seconds (user + system) of a command, from GNU time. */
async function timedCpu(command: string[], report: string): Promise<number> {
  await run('/usr/bin/time', ['-f', '%U %S', '-o', report, ...command]);
  const [user = 0, system = 0] = (await readFile(report, 'utf8')).trim().split('\n').at(-1)!.split(' ').map(Number);
  return user + system;
}

/**
 * The googlevideo stand-in, loaded from the build: its URL helper is a plain .mjs file, which tsc
 * does not copy into dist/, so it is put beside the compiled stand-in first.
 */
async function loadGooglevideo(): Promise<typeof import('../test/support/googlevideo-stand-in.js')> {
  const built = path.join(import.meta.dirname, '..', 'test', 'support');
  const helper = path.join(built, 'googlevideo-url.mjs');
  await access(helper).catch(() => copyFile(path.join(readPackageInfo().root, 'test', 'support', 'googlevideo-url.mjs'), helper));
  return import('../test/support/googlevideo-stand-in.js');
}

/** One track's fragments joined: each as googlevideo serves it (initialization + media, what Kura and yt-dlp store), or the initialization once. */
async function joinTrack(representation: FragmentRepresentation, file: string, initEach: boolean): Promise<void> {
  const init = await readFile(representation.initPath);
  const pieces: Buffer[] = initEach ? [] : [init];
  for (const chunk of representation.chunkPaths) pieces.push(...(initEach ? [init] : []), await readFile(chunk));
  await writeFile(file, Buffer.concat(pieces));
}

/** The material's video and audio, joined into MPEG-TS segments of the fragments' length (the same frames), as a stream bench/capture's live server serves. */
async function hlsOf(material: FragmentMaterial, video: FragmentRepresentation, audio: FragmentRepresentation, dir: string): Promise<EncodedStream> {
  const meta = path.join(dir, 'hls', 'stream.json');
  const cached = await readFile(meta, 'utf8').then(
    (text) => JSON.parse(text) as EncodedStream,
    () => null,
  );
  if (cached !== null) return cached;
  const hlsDir = path.join(dir, 'hls');
  await rm(hlsDir, { recursive: true, force: true });
  await mkdir(hlsDir, { recursive: true });
  const [v, a] = [path.join(hlsDir, 'video.mp4'), path.join(hlsDir, 'audio.mp4')];
  await joinTrack(video, v, false);
  await joinTrack(audio, a, false);
  await run(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-i', v, '-i', a, '-map', '0:v:0', '-map', '1:a:0', '-c', 'copy'],
      ...['-f', 'hls', '-hls_time', String(material.targetSeconds), '-hls_list_size', '0', '-hls_segment_filename', 'segment%05d.ts', 'index.m3u8'],
    ],
    hlsDir,
  );
  const playlist = (await readFile(path.join(hlsDir, 'index.m3u8'), 'utf8')).split('\n');
  const segments: EncodedStream['segments'] = [];
  playlist.forEach((line, i) => {
    const extinf = /^#EXTINF:([\d.]+)/.exec(line);
    if (extinf) segments.push({ name: (playlist[i + 1] as string).trim(), seconds: Number(extinf[1]), bytes: 0 });
  });
  for (const segment of segments) segment.bytes = (await readFile(path.join(hlsDir, segment.name))).length;
  await rm(v);
  await rm(a);
  const encoded: EncodedStream = {
    spec: {
      seconds: material.seconds,
      size: `${video.width}x${video.height}`,
      fps: video.fps ?? 30,
      bitrate: String(video.bitrate),
      segmentSeconds: material.targetSeconds,
    },
    dir: hlsDir,
    segments,
    targetDuration: Math.ceil(Math.max(...segments.map((s) => s.seconds))),
    frames: 0,
    bytes: segments.reduce((sum, s) => sum + s.bytes, 0),
    partFile: '',
  };
  await writeFile(meta, JSON.stringify(encoded, null, 1));
  return encoded;
}

/** A format of the broadcast as Kura's YouTube source hands it to the recorder. */
function formatOf(googlevideo: Googlevideo, representation: FragmentRepresentation): FragmentFormat {
  const { itag, mime, codecs, width, height, fps, bitrate } = representation;
  return { id: String(itag), url: googlevideo.baseUrl(VIDEO_ID, itag), mime, codec: codecs, width, height, fps, bitrate };
}

/** One Kura path in a child process: resolves once it is ready, with `go` to start it and its result. */
async function startRun(input: FragmentsRunInput): Promise<{ go(): void; result: Promise<FragmentsRunResult> }> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'fragments-run.js'), JSON.stringify(input)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let markReady = () => undefined as void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const result = (async () => {
    let parsed: FragmentsRunResult | null = null;
    for await (const line of lines) {
      if (line === 'ready') markReady();
      else if (line.startsWith('{')) parsed = JSON.parse(line) as FragmentsRunResult;
      else console.error(`${input.path}: ${line}`);
    }
    const code = await exited;
    if (parsed === null) throw new Error(`the ${input.path} run exited ${code} without a result`);
    return parsed;
  })();
  await Promise.race([ready, result]);
  return { go: () => child.stdin.write('go\n'), result };
}

async function main(): Promise<void> {
  const started = Date.now();
  const material = await makeFragments({
    codecs: 'h264',
    seconds: SECONDS,
    targetSeconds: TARGET,
    video: { width: WIDTH, height: HEIGHT, bitrate: VIDEO_BITRATE },
  });
  const [, video, audio] = material.representations as [FragmentRepresentation, FragmentRepresentation, FragmentRepresentation];
  const materialDir = path.dirname(video.initPath);
  const encoded = await hlsOf(material, video, audio, materialDir);
  const streamMinutes = (material.fragmentCount * material.targetSeconds) / 60;
  const trackBytes = (r: FragmentRepresentation) =>
    Promise.all(r.chunkPaths.map(async (c) => (await readFile(c)).length)).then((l) => l.reduce((s, n) => s + n, 0));
  const [videoBytes, audioBytes] = [await trackBytes(video), await trackBytes(audio)];
  console.log(
    `stream: ${material.seconds} s, ${material.fragmentCount} fragments of ${TARGET} s; video ${video.width}x${video.height}@${video.fps} H.264 ${((videoBytes * 8) / material.seconds / 1e6).toFixed(2)} Mbit/s, ` +
      `audio AAC ${((audioBytes * 8) / material.seconds / 1000).toFixed(0)} kbit/s; HLS: ${encoded.segments.length} MPEG-TS segments, ${((encoded.bytes * 8) / material.seconds / 1e6).toFixed(2)} Mbit/s`,
  );

  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-fragments-'));
  const database = await startEmbeddedPostgres({ dir: path.join(root, 'postgres'), log: () => undefined });
  const admin = new pg.Client({ connectionString: database.connectionString });
  await admin.connect();
  const { startGooglevideo } = await loadGooglevideo();
  const googlevideo = await startGooglevideo();
  const hls = await serveLive(encoded, await loadSegments(encoded), WINDOW);
  try {
    const databaseUrl = async (name: string) => {
      await admin.query(`create database ${name}`);
      return database.connectionString.replace(/\/[^/]+$/, `/${name}`);
    };
    googlevideo.broadcast(VIDEO_ID, { material }); // on air now to mint its URLs; put on air again from scratch at the start
    const stream: FragmentedStream = {
      video: formatOf(googlevideo, video),
      audio: formatOf(googlevideo, audio),
      fragmentSeconds: TARGET,
      offered: material.representations.map((r) => formatOf(googlevideo, r)),
    };
    const fragments = await startRun({
      path: 'fragments',
      databaseUrl: await databaseUrl('bench_fragments'),
      dataDir: path.join(root, 'fragments'),
      stream,
      lastFragment: material.fragmentCount - 1,
    });
    const playlist = await startRun({
      path: 'hls',
      databaseUrl: await databaseUrl('bench_hls'),
      dataDir: path.join(root, 'hls'),
      playlistUrl: hls.url('kura'),
    });

    // on air: both sources at the same instant, both recorders told at once
    const load = os.loadavg();
    googlevideo.broadcast(VIDEO_ID, { material });
    hls.start();
    fragments.go();
    playlist.go();
    await onAir(hls.url('bare-0')); // bare ffmpeg gives up on the 404 before the first segment
    const bareLive = Promise.all(
      Array.from({ length: BARE_RUNS }, (_, i) =>
        timedCpu(
          [
            ...['ffmpeg', '-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-live_start_index', '0'],
            ...['-i', hls.url(`bare-${i}`), '-c', 'copy', path.join(root, `bare-${i}.mp4`)],
          ],
          path.join(root, `bare-${i}.time`),
        ),
      ),
    );
    const [fragmentResult, hlsResult, bareLiveCpu] = await Promise.all([fragments.result, playlist.result, bareLive]);
    const loadAfter = os.loadavg();

    // after the broadcast: ffmpeg muxing the two tracks as served, the bytes Kura's finalize reads (yt-dlp's merger)
    const [v, a] = [path.join(root, 'video.mp4'), path.join(root, 'audio.mp4')];
    await joinTrack(video, v, true);
    await joinTrack(audio, a, true);
    const bareMuxCpu: number[] = [];
    for (let i = 0; i < BARE_RUNS; i++) {
      const command = ['ffmpeg', '-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-i', v, '-i', a, '-map', '0:v:0', '-map', '1:a:0', '-c', 'copy'];
      bareMuxCpu.push(await timedCpu([...command, '-movflags', '+faststart', path.join(root, 'mux.mp4')], path.join(root, 'mux.time')));
    }
    const bareFrames = await probeFrames(path.join(root, 'bare-0.mp4'));
    const archiveNote = (r: FragmentsRunResult) =>
      `${r.endReason}, ${r.segments} segment rows, ${r.gaps} gaps, archive ${r.archive?.seconds ?? '–'} s ${((r.archive?.bytes ?? 0) / 1e6).toFixed(1)} MB`;
    console.log(
      `fragments: ${archiveNote(fragmentResult)}; recording ${fragmentResult.recordingWall.toFixed(0)} s, finalize ${fragmentResult.finalizeWall.toFixed(1)} s`,
    );
    console.log(`hls: ${archiveNote(hlsResult)}; recording ${hlsResult.recordingWall.toFixed(0)} s, finalize ${hlsResult.finalizeWall.toFixed(1)} s`);
    console.log(
      `bare ffmpeg live, each: ${bareLiveCpu.map((c) => c.toFixed(2)).join(', ')} CPU s (${bareFrames} video frames in the first); mux: ${bareMuxCpu.map((c) => c.toFixed(2)).join(', ')}`,
    );
    report({ fragmentResult, hlsResult, bareLiveCpu, bareMuxCpu, streamMinutes, load: [load, loadAfter] });
    console.log(`\nwall ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await hls.close();
    await googlevideo.close();
    await admin.end();
    await database.stop();
    await rm(root, { recursive: true, force: true });
  }
}

async function probeFrames(file: string): Promise<number> {
  const out = execFileSync(
    'ffprobe',
    ['-v', 'error', '-select_streams', 'v:0', '-count_packets', '-show_entries', 'stream=nb_read_packets', '-of', 'csv=p=0', file],
    {
      encoding: 'utf8',
    },
  );
  return Number(out.trim());
}

interface Figures {
  fragmentResult: FragmentsRunResult;
  hlsResult: FragmentsRunResult;
  bareLiveCpu: number[];
  bareMuxCpu: number[];
  streamMinutes: number;
  load: [number[], number[]];
}

function report({ fragmentResult, hlsResult, bareLiveCpu, bareMuxCpu, streamMinutes, load }: Figures): void {
  const perMinute = (cpu: number) => (cpu / streamMinutes).toFixed(3);
  const kura = (r: FragmentsRunResult) => ({ recording: total(r.recording), finalize: total(r.finalize), all: total(r.recording) + total(r.finalize) });
  const f = kura(fragmentResult);
  const h = kura(hlsResult);
  const bareLive = median(bareLiveCpu);
  const bareMux = median(bareMuxCpu);
  const range = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
  const split = (c: CpuSplit) => `main ${c.main.toFixed(2)}, threads ${c.threads.toFixed(2)}, children ${c.children.toFixed(2)}`;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '–');
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', cwd: readPackageInfo().root }).trim();
    } catch {
      return 'unknown';
    }
  })();
  console.log(
    `\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}, ${execFileSync('ffmpeg', ['-hide_banner', '-version'], { encoding: 'utf8' }).split('\n')[0]}; commit ${commit}; ` +
      `load average ${load[0].map((l) => l.toFixed(1)).join(' ')} before, ${load[1].map((l) => l.toFixed(1)).join(' ')} after; ${(streamMinutes * 60).toFixed(0)} s of stream = ${streamMinutes.toFixed(2)} stream-minutes\n`,
  );
  console.log('| path | recording CPU s | finalize CPU s | total CPU s | **CPU s per stream-minute** | fragment path / this |');
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| Kura, fragments (googlevideo, video + audio; finalize: mux of the two tracks) | ${f.recording.toFixed(2)} (${split(fragmentResult.recording)}) | ${f.finalize.toFixed(2)} (${split(fragmentResult.finalize)}) | ${f.all.toFixed(2)} | **${perMinute(f.all)}** | 1.00× |`,
  );
  console.log(
    `| Kura, HLS (the same stream as MPEG-TS segments; finalize: remux) | ${h.recording.toFixed(2)} (${split(hlsResult.recording)}) | ${h.finalize.toFixed(2)} (${split(hlsResult.finalize)}) | ${h.all.toFixed(2)} | **${perMinute(h.all)}** | **${ratio(f.all, h.all)}** (recording ${ratio(f.recording, h.recording)}, finalize ${ratio(f.finalize, h.finalize)}) |`,
  );
  console.log(
    `| bare \`ffmpeg -live_start_index 0 -i PLAYLIST -c copy out.mp4\`, live (median of ${bareLiveCpu.length}: ${range(bareLiveCpu)}) | ${bareLive.toFixed(2)} | – | ${bareLive.toFixed(2)} | **${perMinute(bareLive)}** | **${ratio(f.all, bareLive)}** (recording alone ${ratio(f.recording, bareLive)}) |`,
  );
  console.log(
    `| bare \`ffmpeg -i VIDEO -i AUDIO -c copy -movflags +faststart\` of the two fragment tracks, after (median of ${bareMuxCpu.length}: ${range(bareMuxCpu)}) | – | ${bareMux.toFixed(2)} | ${bareMux.toFixed(2)} | ${perMinute(bareMux)} | finalize ${ratio(f.finalize, bareMux)} |`,
  );
}

await main();
