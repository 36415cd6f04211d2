// An encoded stream served live by the clock, as a live CDN serves HLS: the media playlist lists the
// last `window` published segments (a sliding window with a rising EXT-X-MEDIA-SEQUENCE), and
// #EXT-X-ENDLIST once the last one is out. Before the first segment is published the playlist is
// 404, as a stream not yet on air, or, once announced, a live playlist without segments yet (what
// `kura archive` accepts and a watch polls until it is on air). One stream answers under any number of URLs (`?viewer=i`), so
// each is a source of its own to Kura while one encode feeds them all.
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import type { EncodedStream } from './encoded-stream.js';

export interface LiveStream {
  /** The media playlist URL of one viewer: same stream, a URL of its own. */
  url(viewer: string): string;
  /** Starts the clock (again, for another run): segment i is published when it would have been finished live. */
  start(): void;
  /** Takes the stream off the air (its playlist 404 again), until start(). */
  offAir(): void;
  /** Off the air, but its playlist answers, listing no segment yet, until start(). */
  announce(): void;
  /** Resolves once the last segment is published (the playlist says #EXT-X-ENDLIST from then). */
  ended(): Promise<void>;
  close(): Promise<void>;
}

/** The segments' bytes, read once and shared by every live server of the stream. */
export function loadSegments(encoded: EncodedStream): Promise<Buffer[]> {
  return Promise.all(encoded.segments.map((s) => readFile(path.join(encoded.dir, s.name))));
}

export async function serveLive(encoded: EncodedStream, bytes: Buffer[], window: number): Promise<LiveStream> {
  // a segment is out once the live encoder would have written its last frame
  const publishedAt: number[] = [];
  encoded.segments.reduce((end, s) => (publishedAt.push(end + s.seconds * 1000), end + s.seconds * 1000), 0);
  let startedAt: number | null = null;
  let announced = false;
  const published = () => (startedAt === null ? 0 : publishedAt.filter((at) => at <= Date.now() - (startedAt as number)).length);
  let markEnded = () => undefined as void;
  const ended = new Promise<void>((resolve) => (markEnded = resolve));
  let endTimer: NodeJS.Timeout | undefined;
  const index = new Map(encoded.segments.map((s, i) => [s.name, i]));
  const server = http.createServer((request, response) => {
    const name = path.basename((request.url ?? '/').split('?')[0] as string);
    const out = published();
    if (name === 'index.m3u8' && (out > 0 || announced)) {
      const body = playlist(encoded, out, window);
      response.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl', 'cache-control': 'no-cache', 'content-length': Buffer.byteLength(body) });
      return void response.end(body);
    }
    const i = index.get(name);
    if (i === undefined || i >= out) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'video/mp2t', 'content-length': (bytes[i] as Buffer).length });
    response.end(bytes[i]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: (viewer) => `http://127.0.0.1:${port}/live/index.m3u8?viewer=${encodeURIComponent(viewer)}`,
    start: () => {
      clearTimeout(endTimer); // started again: a new broadcast of the same stream
      startedAt = Date.now();
      endTimer = setTimeout(markEnded, publishedAt.at(-1) ?? 0);
    },
    offAir: () => {
      clearTimeout(endTimer);
      startedAt = null;
      announced = false;
    },
    announce: () => {
      clearTimeout(endTimer);
      startedAt = null;
      announced = true;
    },
    ended: () => ended,
    close: async () => {
      clearTimeout(endTimer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function playlist(encoded: EncodedStream, published: number, window: number): string {
  const first = Math.max(0, published - window);
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${encoded.targetDuration}`, `#EXT-X-MEDIA-SEQUENCE:${first}`];
  for (let i = first; i < published; i++) {
    const segment = encoded.segments[i] as EncodedStream['segments'][number];
    lines.push(`#EXTINF:${segment.seconds.toFixed(6)},`, segment.name);
  }
  if (published === encoded.segments.length) lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}
