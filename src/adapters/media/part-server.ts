// Decisions: docs/decisions/0039-finalize-writes-once.md
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parseRange, type ByteRange } from '../../core/archive/byte-range.js';
import type { ByteSource } from '../../core/archive/ports.js';
import { loopbackQueued } from './loopback-queue.js';

/** Capture parts served to ffmpeg on 127.0.0.1 for one run. */
export interface PartServer {
  /** One URL per part, in order. */
  urls: string[];
  /** The first failure to read a part from its source: ffmpeg saw it cut short, so its output is void. */
  readonly failure: Error | null;
  /**
   * Bytes written on the connection of ffmpeg's latest request that it has not read yet (Node's
   * and the kernel's socket buffers); null where unknown. An earlier connection still open is one
   * ffmpeg has moved on from (a seek): it reads from it no more.
   */
  queued(): Promise<number | null>;
  close(): Promise<void>;
}

/** How the output side paces what is sent to ffmpeg. */
export interface InputPacing {
  /** ffmpeg made a request: it reads no more of what earlier responses sent (it seeks by reconnecting). */
  requested(): void;
  /** Resolves once `bytes` more may be sent on `socket` (the connection of the response), and counts them as sent. */
  beforeWrite(bytes: number, socket?: Socket): Promise<void>;
}

const unpaced: InputPacing = { requested: () => undefined, beforeWrite: async () => undefined };

/**
 * Serves parts (read from the archive store on demand) to ffmpeg over loopback HTTP, with Range
 * support: ffmpeg then treats each part as a seekable file — it reads the end of an MPEG-TS part
 * to learn its duration, which is how the concat demuxer places the next part on the timeline,
 * exactly as with local files. `pacing` can hold each read back (backpressure from the output
 * side), of the parts `paced` names (a track muxed beside the paced one is read as ffmpeg asks:
 * holding both back could leave ffmpeg waiting for one while the other is held). The path carries a random token: nothing else on the machine can guess it.
 */
export async function serveParts(
  parts: readonly ByteSource[],
  pacing: InputPacing = unpaced,
  paced: (index: number) => boolean = () => true,
): Promise<PartServer> {
  const token = randomBytes(16).toString('hex');
  let failure: Error | null = null;
  let latest: Socket | null = null;
  const server = http.createServer((request, response) => {
    const match = new RegExp(`^/${token}/(\\d+)$`).exec(request.url ?? '');
    const index = Number(match?.[1]);
    const part = match === null ? undefined : parts[index];
    if (part === undefined || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404).end();
      return;
    }
    const pace = paced(index) ? pacing : unpaced;
    if (pace === pacing) latest = request.socket;
    pace.requested();
    const range = parseRange(request.headers.range, part.bytes) ?? { start: 0, end: part.bytes - 1 };
    if (range === 'unsatisfiable') {
      response.writeHead(416, { 'content-range': `bytes */${part.bytes}` }).end();
      return;
    }
    const headers = { 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream', 'content-length': String(range.end - range.start + 1) };
    if (request.headers.range === undefined) response.writeHead(200, headers);
    else response.writeHead(206, { ...headers, 'content-range': `bytes ${range.start}-${range.end}/${part.bytes}` });
    if (request.method === 'HEAD' || part.bytes === 0) {
      response.end();
      return;
    }
    send(part, range, response, (bytes) => pace.beforeWrite(bytes, request.socket)).catch((error: Error) => {
      failure ??= error;
      response.destroy(error);
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    urls: parts.map((_, i) => `http://127.0.0.1:${port}/${token}/${i}`),
    get failure() {
      return failure;
    },
    async queued() {
      const socket = latest;
      if (socket === null || socket.remotePort === undefined) return 0;
      const inKernel = await loopbackQueued(port, socket.remotePort);
      return inKernel === null ? null : inKernel + socket.writableLength;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The first read from the part's source for one response, doubling with each read up to the last. */
const FIRST_READ_BYTES = 256 * 1024;
const LAST_READ_BYTES = 8 * 1024 * 1024;

/**
 * Streams a range of the part; a client that hangs up (ffmpeg seeking elsewhere) just ends it. The
 * source is read in ranges growing from small: ffmpeg reads only a little before most seeks, and
 * what the store sent of a longer range by then is read for nothing.
 */
async function send(part: ByteSource, range: ByteRange, response: http.ServerResponse, beforeWrite: (bytes: number) => Promise<void>): Promise<void> {
  let sent = 0;
  for (let start = range.start, step = FIRST_READ_BYTES; start <= range.end; start += step, step = Math.min(2 * step, LAST_READ_BYTES)) {
    // leaving the loop early (ffmpeg hung up to read elsewhere) closes the source's read
    for await (const bytes of part.read({ start, end: Math.min(range.end, start + step - 1) })) {
      if (response.destroyed) return;
      await beforeWrite(bytes.length);
      if (response.destroyed) return; // closed while held back: its 'close' has passed, no 'drain' will come
      sent += bytes.length;
      if (!response.write(bytes)) await drained(response);
    }
  }
  if (response.destroyed) return;
  const expected = range.end - range.start + 1;
  if (sent !== expected) throw new Error(`a capture part gave ${sent} bytes where ${expected} were expected`);
  response.end();
}

/** Resolves when the response can take more, or is closed. */
function drained(response: http.ServerResponse): Promise<void> {
  if (response.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}
