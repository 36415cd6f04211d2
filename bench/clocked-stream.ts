// A live HLS stream for benchmarks that does not eat the machine: encoded once, ahead of time and
// faster than real time (cached between runs), then served from memory by the clock under as many
// URLs as asked (`/s/<n>/index.m3u8`), each a live sliding window that ends with ENDLIST.
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

export interface EncodedStream {
  segments: Array<{ name: string; seconds: number; bytes: Buffer }>;
  totalBytes: number;
}

/** Encodes `seconds` of a 1280x720 30 fps ~3 Mbit/s test stream into 1 s MPEG-TS segments, once per length. */
export async function encodedStream(seconds: number): Promise<EncodedStream> {
  const dir = path.join(os.tmpdir(), `kura-bench-720p30-${seconds}s`);
  const playlist = path.join(dir, 'index.m3u8');
  if (!(await stat(playlist).catch(() => null))) {
    await mkdir(dir, { recursive: true });
    await run('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-nostdin', '-y'],
      ...['-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=30', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', String(seconds)],
      ...[
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-tune',
        'zerolatency',
        '-b:v',
        '3000k',
        '-minrate',
        '3000k',
        '-maxrate',
        '3000k',
        '-bufsize',
        '3000k',
        '-x264-params',
        'nal-hrd=cbr',
        '-g',
        '30',
        '-keyint_min',
        '30',
        '-sc_threshold',
        '0',
      ],
      ...['-c:a', 'aac', '-b:a', '64k', '-f', 'hls', '-hls_time', '1', '-hls_list_size', '0', '-hls_playlist_type', 'vod'],
      ...['-hls_segment_filename', path.join(dir, 'seg%05d.ts'), playlist],
    ]);
  }
  const lines = (await readFile(playlist, 'utf8')).split('\n');
  const segments: EncodedStream['segments'] = [];
  for (let i = 0; i < lines.length; i++) {
    const inf = /^#EXTINF:([\d.]+)/.exec(lines[i] as string);
    if (inf === null) continue;
    const name = lines[i + 1] as string;
    segments.push({ name, seconds: Number(inf[1]), bytes: await readFile(path.join(dir, name)) });
  }
  if (segments.length === 0) throw new Error(`${dir}: no segments (${(await readdir(dir)).join(', ')})`);
  return { segments, totalBytes: segments.reduce((sum, s) => sum + s.bytes.length, 0) };
}

export interface ClockedServer {
  /** `http://127.0.0.1:PORT/s/<n>/index.m3u8` */
  url(n: number): string;
  /** Starts the broadcast clock: segment i appears once the stream has run to its end (the first one at once). */
  start(): void;
  /** Segment requests answered so far. */
  segmentRequests(): number;
  close(): Promise<void>;
}

/** Serves `stream` live by the clock, in a window of `windowSize` segments, under any `/s/<n>/` prefix. */
export async function serveClocked(stream: EncodedStream, windowSize = 10): Promise<ClockedServer> {
  const ends: number[] = [];
  let t = 0;
  for (const s of stream.segments) ends.push((t += s.seconds));
  const target = Math.ceil(Math.max(...stream.segments.map((s) => s.seconds)));
  const byName = new Map(stream.segments.map((s) => [s.name, s.bytes]));
  let startedAt: number | null = null;
  let segmentRequests = 0;

  const playlist = (): string => {
    // the first segment is there at the start, as on a stream that has just gone live
    const elapsed = startedAt === null ? -1 : (Date.now() - startedAt) / 1000 + (stream.segments[0]?.seconds ?? 1);
    const available = ends.filter((end) => end <= elapsed).length;
    const first = Math.max(0, available - windowSize);
    const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${target}`, `#EXT-X-MEDIA-SEQUENCE:${first}`];
    for (let i = first; i < available; i++) {
      const s = stream.segments[i] as EncodedStream['segments'][number];
      lines.push(`#EXTINF:${s.seconds.toFixed(6)},`, s.name);
    }
    if (available === stream.segments.length) lines.push('#EXT-X-ENDLIST');
    return `${lines.join('\n')}\n`;
  };

  const server = http.createServer((request, response) => {
    const name = (request.url ?? '').split('/').at(-1) ?? '';
    if (name === 'index.m3u8') {
      const body = playlist();
      return void response.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl', 'content-length': Buffer.byteLength(body) }).end(body);
    }
    const bytes = byName.get(name);
    if (bytes === undefined) return void response.writeHead(404).end();
    segmentRequests += 1;
    response.writeHead(200, { 'content-type': 'video/mp2t', 'content-length': bytes.length }).end(bytes);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: (n) => `http://127.0.0.1:${port}/s/${n}/index.m3u8`,
    start: () => (startedAt = Date.now()),
    segmentRequests: () => segmentRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}: ${stderr}`))));
  });
}
