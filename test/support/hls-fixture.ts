import { spawn, type ChildProcess } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { watch } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { hlsOutput, testCodecs, testSignal } from './ffmpeg-args.js';

export interface HlsFixture {
  /** The media playlist URL on 127.0.0.1: a live playlist without segments until the stream starts (a stream announced before it is on air, which Kura accepts at submission); 404 with `announced: false`. */
  url: string;
  dir: string;
  /** Starts the live encoder (with `overrides` of the fixture's options); resolves when ffmpeg has written the last segment (and ENDLIST). */
  start(overrides?: Partial<FixtureOptions>): Promise<void>;
  /** Resolves once the encoder has written the playlist: the stream is on air, as a live source's is. */
  onAir(): Promise<void>;
  /** Kills the encoder (SIGKILL): the playlist stays, without ENDLIST, as when a source dies. */
  kill(): void;
  /** Ends the broadcast now, as its streamer does: the encoder stops cleanly and writes ENDLIST; resolves once it exited. */
  finish(): Promise<void>;
  /** Paths requested so far. */
  requests: string[];
  /** Resolves when `count` requests matching `match` have been seen. */
  seen(match: RegExp, count: number): Promise<void>;
  /** Rejects requests while set: status to answer, or 'reset' to drop the connection; `headers`: the request's. */
  fail: ((requestPath: string, rawUrl: string, headers: http.IncomingHttpHeaders) => number | 'reset' | 'stall' | null) | null;
  /** Rewrites the media playlist as it is served, while set (a source's own tags: `stitchAds`). */
  playlistEdit: ((text: string) => string) | null;
  /** Kills the encoder if it still runs and waits for it to exit, then stops the server. */
  close(): Promise<void>;
}

export interface FixtureOptions {
  seconds: number;
  /** 0 keeps every segment in the playlist; N keeps a sliding window of N and deletes older files. */
  listSize?: number;
  size?: string;
  fps?: number;
  bitrate?: string;
  /** Constant bitrate (filler data): the stream is exactly `bitrate`, however simple the picture. */
  constantBitrate?: boolean;
  /** `fmp4` writes fragmented MP4 segments behind an `#EXT-X-MAP` initialization section. */
  segmentType?: 'mpegts' | 'fmp4';
  /** false: the playlist just stops, without ENDLIST (as MediaMTX's does when the publisher leaves). Default true. */
  endlist?: boolean;
  /** Put before the segment file names (`b2-seg00000.ts`), so broadcasts on one playlist keep apart. */
  segmentPrefix?: string;
  /** Target length of each segment, in seconds (default 1); a keyframe starts every second whatever it is. */
  segmentSeconds?: number;
  /** false: encode as fast as the machine can, not in real time (a stream prepared ahead, as bench/capture does). Default true. */
  realtime?: boolean;
  /** false: the playlist URL answers 404 until the encoder wrote the playlist (and once it is deleted), as MediaMTX's does. Default true. */
  announced?: boolean;
}

/** The fixture's playlist before the encoder wrote one: live (no ENDLIST), no segment yet. */
const ANNOUNCED_PLAYLIST = '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n';
const PLAYLIST_PATH = '/live/index.m3u8';

/** Matches the fixture's media segment requests, of either segment type. */
export const SEGMENT_REQUEST = /seg\d+\.(ts|m4s)$/;

/** A real live HLS stream: ffmpeg encodes a test pattern in real time (-re), a node server serves it. */
export async function startHlsFixture(options: FixtureOptions): Promise<HlsFixture> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-hls-'));
  await mkdir(path.join(dir, 'live'));
  let waiters: Array<() => boolean> = [];
  let encoder: ChildProcess | null = null;
  let encoderDone: Promise<void> = Promise.resolve();
  const fixture: HlsFixture = {
    url: '',
    dir,
    requests: [],
    seen: (match, count) =>
      new Promise<void>((resolve) => {
        const done = () => {
          if (fixture.requests.filter((r) => match.test(r)).length < count) return false;
          resolve();
          return true;
        };
        if (!done()) waiters.push(done);
      }),
    fail: null,
    playlistEdit: null,
    start: (overrides = {}) => {
      const run = runEncoder(path.join(dir, 'live'), { ...options, ...overrides });
      encoder = run.child;
      encoderDone = run.done.catch(() => undefined); // close() waits for the exit, not its verdict
      return run.done;
    },
    onAir: () => fileAppears(path.join(dir, 'live'), 'index.m3u8'),
    kill: () => encoder?.kill('SIGKILL'),
    finish: () => {
      encoder?.kill('SIGINT'); // ffmpeg's clean stop: the last segment and ENDLIST are written
      return encoderDone;
    },
    close: async () => undefined,
  };
  const server = http.createServer((request, response) => {
    const requestPath = (request.url ?? '/').split('?')[0] as string;
    fixture.requests.push(requestPath);
    waiters = waiters.filter((done) => !done());
    const fault = fixture.fail?.(requestPath, request.url ?? '/', request.headers) ?? null;
    if (fault === 'reset') return request.socket.destroy();
    const announced = requestPath === PLAYLIST_PATH && options.announced !== false ? ANNOUNCED_PLAYLIST : null;
    if (fault === 'stall') return void setTimeout(() => serve(dir, requestPath, response, request.headers.range, announced), 2000);
    if (typeof fault === 'number') {
      response.writeHead(fault).end();
      return;
    }
    const edit = requestPath === PLAYLIST_PATH ? fixture.playlistEdit : null;
    if (edit !== null) return void servePlaylist(path.join(dir, requestPath), response, edit, announced);
    serve(dir, requestPath, response, request.headers.range, announced);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  fixture.url = `http://127.0.0.1:${port}${PLAYLIST_PATH}`;
  // an encoder still on air is killed and waited for, so no ffmpeg outlives its test
  fixture.close = async () => {
    if (encoder !== null && encoder.exitCode === null && encoder.signalCode === null) encoder.kill('SIGKILL');
    await encoderDone;
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  };
  return fixture;
}

/** Resolves when `name` exists in `folder` (inotify, so no polling). */
function fileAppears(folder: string, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(folder, (_event, filename) => filename === name && done());
    const done = () => {
      watcher.close();
      resolve();
    };
    // looked for after the watch began, so a file written in between is not missed
    stat(path.join(folder, name)).then(done, () => undefined);
    watcher.on('error', reject);
  });
}

const CONTENT_TYPES: Record<string, string> = {
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.m4s': 'video/iso.segment',
  '.mp4': 'video/mp4',
};

/** Serves a file as a CDN would, with single byte ranges (`#EXT-X-BYTERANGE` streams need them); `missing` answers in place of a file not there yet (else 404). */
function serve(root: string, requestPath: string, response: http.ServerResponse, rangeHeader: string | undefined, missing: string | null = null): void {
  const file = path.join(root, path.normalize(requestPath).replace(/^(\.\.[/\\])+/, ''));
  // opened before it is measured and read, so a playlist deleted or replaced meanwhile (goOffline)
  // is served whole as it was, not an ENOENT between the stat and the read
  open(file, 'r')
    .then(
      async (handle) => {
        const info = await handle.stat();
        const headers = { 'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' };
        const range = /^bytes=(\d+)-(\d+)$/.exec(rangeHeader ?? '');
        if (range === null) {
          response.writeHead(200, { ...headers, 'content-length': info.size });
          return void pipeline(handle.createReadStream(), response, () => undefined);
        }
        const start = Number(range[1]);
        const end = Math.min(Number(range[2]), info.size - 1);
        response.writeHead(206, { ...headers, 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${info.size}` });
        pipeline(handle.createReadStream({ start, end }), response, () => undefined);
      },
      () =>
        missing === null
          ? response.writeHead(404).end()
          : response.writeHead(200, { 'content-type': CONTENT_TYPES['.m3u8'] as string, 'cache-control': 'no-cache' }).end(missing),
    )
    .catch(() => response.destroy());
}

/** Serves the playlist as `edit` rewrites it (or the announced one, edited, before the encoder wrote one). */
function servePlaylist(file: string, response: http.ServerResponse, edit: (text: string) => string, missing: string | null): void {
  readFile(file, 'utf8').then(
    (text) => response.writeHead(200, { 'content-type': CONTENT_TYPES['.m3u8'] as string, 'cache-control': 'no-cache' }).end(edit(text)),
    () =>
      missing === null
        ? response.writeHead(404).end()
        : response.writeHead(200, { 'content-type': CONTENT_TYPES['.m3u8'] as string, 'cache-control': 'no-cache' }).end(edit(missing)),
  );
}

/**
 * A playlist edit that marks the segments of `sequences` as ads stitched in as Twitch does
 * (docs/research/live-sites-contract.md §2): titled `Amazon|…` in their `#EXTINF`, with a
 * discontinuity into the break and out of it. The segments' media stay the stream's: a recording
 * that kept them would be longer by them.
 */
export function stitchAds(sequences: readonly number[]): (text: string) => string {
  const ads = new Set(sequences);
  return (text) => {
    const lines = text.split('\n');
    let sequence = Number(/^#EXT-X-MEDIA-SEQUENCE:(\d+)/m.exec(text)?.[1] ?? 0);
    let previousWasAd = false;
    const out: string[] = [];
    for (const line of lines) {
      if (line.startsWith('#EXTINF:')) {
        const ad = ads.has(sequence);
        if (ad !== previousWasAd) out.push('#EXT-X-DISCONTINUITY');
        out.push(ad ? `${line.replace(/,.*$/, '')},Amazon|4242` : line);
        previousWasAd = ad;
        continue;
      }
      out.push(line);
      if (line !== '' && !line.startsWith('#')) sequence += 1;
    }
    return out.join('\n');
  };
}

function runEncoder(dir: string, options: FixtureOptions): { child: ChildProcess; done: Promise<void> } {
  const child: ChildProcess = spawn('ffmpeg', encoderArgs(dir, options), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    // 255: stopped by finish() (ffmpeg's exit code after a SIGINT it handled)
    child.on('close', (code, signal) =>
      code === 0 || code === 255 || signal === 'SIGKILL' ? resolve() : reject(new Error(`fixture ffmpeg exited ${code}: ${stderr}`)),
    );
  });
  return { child, done };
}

/** The fixture encoder's ffmpeg arguments: a test picture and tone as HLS in 1 s segments (`segmentSeconds`), a keyframe every second, into `dir`. */
export function encoderArgs(dir: string, options: FixtureOptions): string[] {
  const {
    seconds,
    listSize = 0,
    size = '320x180',
    fps = 30,
    bitrate = '400k',
    segmentType = 'mpegts',
    constantBitrate = false,
    segmentPrefix = '',
    segmentSeconds = 1,
  } = options;
  const flags = [...(listSize > 0 ? ['temp_file', 'delete_segments'] : ['temp_file']), ...(options.endlist === false ? ['omit_endlist'] : [])];
  const cbr = constantBitrate ? ['-minrate', bitrate, '-maxrate', bitrate, '-bufsize', bitrate, '-x264-params', 'nal-hrd=cbr'] : [];
  const segments = segmentType === 'fmp4' ? ['-hls_segment_type', 'fmp4', '-hls_fmp4_init_filename', 'init.mp4'] : [];
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    ...(options.realtime === false ? [] : ['-re']),
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=${size}:rate=${fps}`,
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=48000',
    '-t',
    String(seconds),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-tune',
    'zerolatency',
    '-b:v',
    bitrate,
    ...cbr,
    '-g',
    String(fps),
    '-keyint_min',
    String(fps),
    '-sc_threshold',
    '0',
    '-c:a',
    'aac',
    '-b:a',
    '64k',
    '-f',
    'hls',
    '-hls_time',
    String(segmentSeconds),
    '-hls_list_size',
    String(listSize),
    '-hls_flags',
    flags.join('+'),
    ...segments,
    '-hls_segment_filename',
    path.join(dir, `${segmentPrefix}${segmentType === 'fmp4' ? 'seg%05d.m4s' : 'seg%05d.ts'}`),
    path.join(dir, 'index.m3u8'),
  ];
}

/** ffprobe's duration and video frame count of a media file. */
export async function probe(file: string): Promise<{ duration: number; frames: number }> {
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('ffprobe', [
      '-v',
      'error',
      '-count_packets',
      '-select_streams',
      'v:0',
      '-show_entries',
      'format=duration:stream=nb_read_packets',
      '-of',
      'json',
      file,
    ]);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`ffprobe ${file} exited ${code}`))));
  });
  const json = JSON.parse(output) as { format: { duration: string }; streams: Array<{ nb_read_packets: string }> };
  return { duration: Number(json.format.duration), frames: Number(json.streams[0]?.nb_read_packets) };
}

/** The reference: the fixture's own segments remuxed by plain ffmpeg. */
export async function remuxReference(playlist: string, output: string): Promise<void> {
  await runFfmpeg(['-hide_banner', '-loglevel', 'error', '-y', '-i', playlist, '-c', 'copy', output]);
}

/**
 * Writes a finished stream whose second half restarts its timestamps at a different resolution
 * after `#EXT-X-DISCONTINUITY` (as an ad break or an encoder restart does): 5 s at 320x180, then
 * 5 s at 640x360, 1 s segments, 30 fps.
 */
export async function writeDiscontinuityStream(liveDir: string): Promise<void> {
  for (const [name, size] of [
    ['a', '320x180'],
    ['b', '640x360'],
  ] as const) {
    await runFfmpeg([
      ...testSignal(`testsrc=size=${size}:rate=30`, 5),
      ...testCodecs(),
      ...hlsOutput(path.join(liveDir, `${name}%02d.ts`), path.join(liveDir, `${name}.m3u8`)),
    ]);
  }
  const media = (text: string) => text.split('\n').filter((line) => line.startsWith('#EXTINF') || line.endsWith('.ts'));
  const first = await readFile(path.join(liveDir, 'a.m3u8'), 'utf8');
  const second = await readFile(path.join(liveDir, 'b.m3u8'), 'utf8');
  const header = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:1', '#EXT-X-MEDIA-SEQUENCE:0'];
  await writeFile(path.join(liveDir, 'index.m3u8'), [...header, ...media(first), '#EXT-X-DISCONTINUITY', ...media(second), '#EXT-X-ENDLIST', ''].join('\n'));
}

/**
 * Writes a finished 5 s fMP4 stream (320x180, 30 fps, 1 s segments) kept in one file: its
 * initialization section and every segment are byte ranges of `media.mp4`
 * (`#EXT-X-MAP:...,BYTERANGE=` and `#EXT-X-BYTERANGE`).
 */
export async function writeSingleFileStream(liveDir: string): Promise<void> {
  const singleFile = ['-hls_playlist_type', 'vod', '-hls_segment_type', 'fmp4', '-hls_flags', 'single_file'];
  await runFfmpeg([
    ...testSignal('testsrc=size=320x180:rate=30', 5),
    ...testCodecs(),
    ...hlsOutput(path.join(liveDir, 'media.mp4'), path.join(liveDir, 'index.m3u8'), singleFile),
  ]);
}

/** The AES-128 key `writeEncryptedStream` encrypts with, served as `key.bin`. */
export const FIXTURE_KEY = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');

/**
 * Writes a finished 4 s MPEG-TS stream (320x180, 30 fps, 1 s segments, media sequence from 10)
 * encrypted as `method` says. For AES-128 the segments are encrypted here with FIXTURE_KEY: the
 * first two with the media sequence number as IV (the key line names none), the last two with an
 * explicit IV, as RFC 8216 §5.2 allows both.
 */
export async function writeEncryptedStream(liveDir: string, method: 'AES-128' | 'SAMPLE-AES'): Promise<void> {
  const plainDir = path.join(liveDir, 'plain');
  await mkdir(plainDir);
  const silent = { silent: true };
  await runFfmpeg([
    ...testSignal('testsrc=size=320x180:rate=30', 4, silent),
    ...testCodecs(silent),
    ...hlsOutput(path.join(plainDir, 'p%02d.ts'), path.join(plainDir, 'index.m3u8')),
  ]);
  const explicitIv = Buffer.from('f0e0d0c0b0a090807060504030201000', 'hex');
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:1', '#EXT-X-MEDIA-SEQUENCE:10'];
  for (let i = 0; i < 4; i++) {
    const sequence = 10 + i;
    const iv = i < 2 ? null : explicitIv;
    if (i === 0) lines.push(`#EXT-X-KEY:METHOD=${method},URI="key.bin"`);
    if (i === 2) lines.push(`#EXT-X-KEY:METHOD=${method},URI="key.bin",IV=0x${explicitIv.toString('hex')}`);
    const plain = await readFile(path.join(plainDir, `p0${i}.ts`));
    const cipher = createCipheriv('aes-128-cbc', FIXTURE_KEY, iv ?? sequenceIv(sequence));
    await writeFile(path.join(liveDir, `seg${String(sequence).padStart(5, '0')}.ts`), Buffer.concat([cipher.update(plain), cipher.final()]));
    lines.push('#EXTINF:1.000000,', `seg${String(sequence).padStart(5, '0')}.ts`);
  }
  await writeFile(path.join(liveDir, 'key.bin'), FIXTURE_KEY);
  await writeFile(path.join(liveDir, 'index.m3u8'), [...lines, '#EXT-X-ENDLIST', ''].join('\n'));
}

function sequenceIv(sequence: number): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(sequence, 12);
  return iv;
}

/** Runs ffmpeg to its end; rejects with its exit code and error output. */
function runFfmpeg(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${stderr}`))));
  });
}
