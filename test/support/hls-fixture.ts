import { spawn, type ChildProcess } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdir, mkdtemp, stat } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { serve, servePlaylist } from './hls-serve.js';

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
  /**
   * Languages of audio renditions apart from the video (each its own tone): the playlist URL is
   * then a multivariant playlist naming one variant, whose segments carry video only, and an
   * `#EXT-X-MEDIA:TYPE=AUDIO` rendition per language (the first `DEFAULT=YES`), as ffmpeg's
   * `-var_stream_map` writes them (fMP4 ones behind an initialization section each).
   */
  audioRenditions?: readonly string[];
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
    ...tones(options.audioRenditions?.length ?? 1).flatMap((tone) => ['-f', 'lavfi', '-i', tone]),
    '-t',
    String(seconds),
    ...(options.audioRenditions === undefined ? [] : ['-map', '0:v', ...options.audioRenditions.flatMap((_, i) => ['-map', `${i + 1}:a`])]),
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
    ...(options.audioRenditions === undefined
      ? ['-hls_segment_filename', path.join(dir, `${segmentPrefix}${segmentType === 'fmp4' ? 'seg%05d.m4s' : 'seg%05d.ts'}`), path.join(dir, 'index.m3u8')]
      : renditionOutputs(dir, options.audioRenditions, segmentType === 'fmp4' ? 'm4s' : 'ts')),
  ];
}

/** One lavfi tone per audio stream, each its own pitch (440 Hz, 660 Hz, …). */
function tones(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `sine=frequency=${440 + 220 * i}:sample_rate=48000`);
}

/** ffmpeg's HLS outputs of a video variant and audio renditions in `languages`: `index.m3u8` the multivariant playlist naming them. */
function renditionOutputs(dir: string, languages: readonly string[], extension: 'ts' | 'm4s'): string[] {
  const audio = languages.map((language, i) => `a:${i},agroup:audio,language:${language},name:${language}${i === 0 ? ',default:yes' : ''}`);
  return [
    '-master_pl_name',
    'index.m3u8',
    '-var_stream_map',
    ['v:0,agroup:audio,name:video', ...audio].join(' '),
    '-hls_segment_filename',
    path.join(dir, `%v-seg%05d.${extension}`),
    path.join(dir, '%v.m3u8'),
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
