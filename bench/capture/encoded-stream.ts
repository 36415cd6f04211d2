// A stream encoded once, ahead of time and faster than real time, kept in a cache folder named by
// its parameters: runs after the first reuse it, and no run measures an encoder.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { encoderArgs, probe, type FixtureOptions } from '../../test/support/hls-fixture.js';

export interface StreamSpec {
  seconds: number;
  size: string;
  fps: number;
  bitrate: string;
  /** Target length of each segment, in seconds. */
  segmentSeconds: number;
}

export interface EncodedStream {
  spec: StreamSpec;
  dir: string;
  segments: Array<{ name: string; seconds: number; bytes: number }>;
  targetDuration: number;
  /** Video frames in the whole stream (ffprobe's packet count of the joined segments). */
  frames: number;
  bytes: number;
  /** The segments joined end to end: the part Kura stores when it misses no segment. */
  partFile: string;
}

/** The encoded stream for `spec`, from the cache or encoded now (the first time only). */
export async function encodedStream(cacheDir: string, spec: StreamSpec): Promise<EncodedStream> {
  // constant bitrate (filler data), as a streamer's OBS sends it: a test picture alone would undershoot the bitrate by half
  const options: FixtureOptions = { ...spec, listSize: 0, realtime: false, constantBitrate: true };
  // named by everything that shapes the bytes: the encoder's arguments and its version
  const key = createHash('sha256')
    .update(JSON.stringify([encoderArgs('', options), await ffmpegFirstLine()]))
    .digest('hex')
    .slice(0, 12);
  const dir = path.join(cacheDir, `${spec.size}-${spec.fps}fps-${spec.bitrate}-${spec.seconds}s-${key}`);
  const meta = path.join(dir, 'stream.json');
  const cached = await readFile(meta, 'utf8').then(
    (text) => JSON.parse(text) as EncodedStream,
    () => null,
  );
  if (cached !== null) return { ...cached, dir, partFile: path.join(dir, 'part.ts') };
  const started = Date.now();
  console.error(`bench/capture: encoding ${spec.seconds} s of ${spec.size} ${spec.fps} fps at ${spec.bitrate} once, into ${dir}`);
  // written beside the cache and renamed when whole, so an interrupted encode is never reused
  const work = `${dir}.part-${process.pid}`;
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  await run('ffmpeg', encoderArgs(work, options));
  const playlist = await readFile(path.join(work, 'index.m3u8'), 'utf8');
  const segments = await Promise.all(parseSegments(playlist).map(async (s) => ({ ...s, bytes: (await stat(path.join(work, s.name))).size })));
  const partFile = path.join(work, 'part.ts');
  const out = await open(partFile, 'w');
  try {
    for (const segment of segments) await out.write(await readFile(path.join(work, segment.name)));
  } finally {
    await out.close();
  }
  const encoded: EncodedStream = {
    spec,
    dir,
    segments,
    targetDuration: Number(/#EXT-X-TARGETDURATION:(\d+)/.exec(playlist)?.[1] ?? 1),
    frames: (await probe(partFile)).frames,
    bytes: segments.reduce((sum, s) => sum + s.bytes, 0),
    partFile: path.join(dir, 'part.ts'),
  };
  await writeFile(path.join(work, 'stream.json'), JSON.stringify(encoded, null, 1));
  await rm(dir, { recursive: true, force: true });
  await rename(work, dir);
  console.error(`bench/capture: encoded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return encoded;
}

function parseSegments(playlist: string): Array<{ name: string; seconds: number }> {
  const lines = playlist.split('\n').map((l) => l.trim());
  const segments: Array<{ name: string; seconds: number }> = [];
  lines.forEach((line, i) => {
    const extinf = /^#EXTINF:([\d.]+)/.exec(line);
    if (extinf) segments.push({ name: lines[i + 1] as string, seconds: Number(extinf[1]) });
  });
  return segments;
}

async function ffmpegFirstLine(): Promise<string> {
  return (await run('ffmpeg', ['-hide_banner', '-version'])).split('\n')[0] ?? '';
}

function run(program: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${program} exited ${code}: ${err}`))));
  });
}
