import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

export interface HlsFixture {
  /** The media playlist URL on 127.0.0.1 (404 until the stream starts). */
  url: string;
  dir: string;
  /** Starts the live encoder; resolves when ffmpeg has written the last segment and ENDLIST. */
  start(): Promise<void>;
  /** Kills the encoder (SIGKILL): the playlist stays, without ENDLIST, as when a source dies. */
  kill(): void;
  /** Paths requested so far. */
  requests: string[];
  /** Resolves when `count` requests matching `match` have been seen. */
  seen(match: RegExp, count: number): Promise<void>;
  /** Rejects requests while set: status to answer, or 'reset' to drop the connection. */
  fail: ((requestPath: string) => number | 'reset' | 'stall' | null) | null;
  close(): Promise<void>;
}

export interface FixtureOptions {
  seconds: number;
  /** 0 keeps every segment in the playlist; N keeps a sliding window of N and deletes older files. */
  listSize?: number;
  size?: string;
  fps?: number;
  bitrate?: string;
}

/** A real live HLS stream: ffmpeg encodes a test pattern in real time (-re), a node server serves it. */
export async function startHlsFixture(options: FixtureOptions): Promise<HlsFixture> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-hls-'));
  await mkdir(path.join(dir, 'live'));
  let waiters: Array<() => boolean> = [];
  let encoder: ChildProcess | null = null;
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
    start: () => {
      const run = runEncoder(path.join(dir, 'live'), options);
      encoder = run.child;
      return run.done;
    },
    kill: () => encoder?.kill('SIGKILL'),
    close: async () => undefined,
  };
  const server = http.createServer((request, response) => {
    const requestPath = (request.url ?? '/').split('?')[0] as string;
    fixture.requests.push(requestPath);
    waiters = waiters.filter((done) => !done());
    const fault = fixture.fail?.(requestPath) ?? null;
    if (fault === 'reset') return request.socket.destroy();
    if (fault === 'stall') return void setTimeout(() => serve(dir, requestPath, response), 2000);
    if (typeof fault === 'number') {
      response.writeHead(fault).end();
      return;
    }
    serve(dir, requestPath, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  fixture.url = `http://127.0.0.1:${port}/live/index.m3u8`;
  fixture.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fixture;
}

function serve(root: string, requestPath: string, response: http.ServerResponse): void {
  const file = path.join(root, path.normalize(requestPath).replace(/^(\.\.[/\\])+/, ''));
  stat(file).then(
    (info) => {
      const type = file.endsWith('.m3u8') ? 'application/vnd.apple.mpegurl' : 'video/mp2t';
      response.writeHead(200, { 'content-type': type, 'content-length': info.size, 'cache-control': 'no-cache' });
      createReadStream(file).pipe(response);
    },
    () => response.writeHead(404).end(),
  );
}

function runEncoder(dir: string, options: FixtureOptions): { child: ChildProcess; done: Promise<void> } {
  const { seconds, listSize = 0, size = '320x180', fps = 30, bitrate = '400k' } = options;
  const args = [
    '-hide_banner', '-loglevel', 'error', '-nostdin', '-re',
    '-f', 'lavfi', '-i', `testsrc=size=${size}:rate=${fps}`,
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000',
    '-t', String(seconds),
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-b:v', bitrate,
    '-g', String(fps), '-keyint_min', String(fps), '-sc_threshold', '0',
    '-c:a', 'aac', '-b:a', '64k',
    '-f', 'hls', '-hls_time', '1', '-hls_list_size', String(listSize),
    '-hls_flags', listSize > 0 ? 'temp_file+delete_segments' : 'temp_file',
    '-hls_segment_filename', path.join(dir, 'seg%05d.ts'),
    path.join(dir, 'index.m3u8'),
  ];
  const child: ChildProcess = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => (code === 0 || signal === 'SIGKILL' ? resolve() : reject(new Error(`fixture ffmpeg exited ${code}: ${stderr}`))));
  });
  return { child, done };
}

/** ffprobe's duration and video frame count of a media file. */
export async function probe(file: string): Promise<{ duration: number; frames: number }> {
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('ffprobe', ['-v', 'error', '-count_packets', '-select_streams', 'v:0', '-show_entries', 'format=duration:stream=nb_read_packets', '-of', 'json', file]);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`ffprobe ${file} exited ${code}`))));
  });
  const json = JSON.parse(output) as { format: { duration: string }; streams: Array<{ nb_read_packets: string }> };
  return { duration: Number(json.format.duration), frames: Number(json.streams[0]?.nb_read_packets) };
}

/** The reference: the fixture's own segments remuxed by plain ffmpeg. */
export async function remuxReference(playlist: string, output: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', playlist, '-c', 'copy', output]);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`reference remux exited ${code}`))));
  });
}

/**
 * Writes a finished stream whose second half restarts its timestamps at a different resolution
 * after `#EXT-X-DISCONTINUITY` (as an ad break or an encoder restart does): 5 s at 320x180, then
 * 5 s at 640x360, 1 s segments, 30 fps.
 */
export async function writeDiscontinuityStream(liveDir: string): Promise<void> {
  for (const [name, size] of [['a', '320x180'], ['b', '640x360']] as const) {
    await new Promise<void>((resolve, reject) => {
      const child = spawn('ffmpeg', [
        '-hide_banner', '-loglevel', 'error', '-nostdin', '-y',
        '-f', 'lavfi', '-i', `testsrc=size=${size}:rate=30`, '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000',
        '-t', '5', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '30', '-c:a', 'aac',
        '-f', 'hls', '-hls_time', '1', '-hls_list_size', '0', '-hls_segment_filename', path.join(liveDir, `${name}%02d.ts`), path.join(liveDir, `${name}.m3u8`),
      ]);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
    });
  }
  const media = (text: string) => text.split('\n').filter((line) => line.startsWith('#EXTINF') || line.endsWith('.ts'));
  const first = await readFile(path.join(liveDir, 'a.m3u8'), 'utf8');
  const second = await readFile(path.join(liveDir, 'b.m3u8'), 'utf8');
  const header = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:1', '#EXT-X-MEDIA-SEQUENCE:0'];
  await writeFile(path.join(liveDir, 'index.m3u8'), [...header, ...media(first), '#EXT-X-DISCONTINUITY', ...media(second), '#EXT-X-ENDLIST', ''].join('\n'));
}
