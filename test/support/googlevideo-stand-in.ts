// Research: docs/research/youtube-live-contract.md §1, §5.1 (fake googlevideo)
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { googlevideoSig, googlevideoUrl, type AdaptiveState } from './googlevideo-url.mjs';
import { fragmentBytes, type FragmentMaterial, type FragmentRepresentation } from './youtube-fragments.js';

export type { AdaptiveFormatState, AdaptiveState } from './googlevideo-url.mjs';

/** How a broadcast goes on air. */
export interface BroadcastOptions {
  /** The fragments it serves; when its head reaches the last one, the broadcast ends by itself. */
  material: FragmentMaterial;
  /** Began this long ago: the head is already `startedSecondsAgo / targetSeconds` (default 0). */
  startedSecondsAgo?: number;
  /** Lifetime of each base URL minted for it (YouTube's `expiresInSeconds`, default 21540). */
  expireInSeconds?: number;
}

/** One request as the stand-in answered it; `sq` is null for the head probe (no `sq` in the URL). */
export interface FragmentRequest {
  method: string;
  videoId: string | null;
  itag: number | null;
  sq: number | null;
  status: number;
}

/** A fault to answer instead: a status (401, 503…), `empty` (200 with no body) or `reset` (the connection dropped). */
export type GooglevideoFault = number | 'empty' | 'reset' | null;

/** A stand-in for YouTube's fragment server, on 127.0.0.1. */
export interface Googlevideo {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** Puts `videoId` on air (again, from scratch, if it was). */
  broadcast(videoId: string, options: BroadcastOptions): void;
  /** Ends the broadcast now: the head freezes where it is; what is past it is 404 for good. */
  end(videoId: string): void;
  /** Makes fragment `sq` of one itag (of every itag without `itag`) 404, every time. */
  lose(videoId: string, sq: number, itag?: number): void;
  /** The newest fragment's sq (what X-Head-Seqnum says). */
  head(videoId: string): number;
  /** A freshly minted base URL (no `sq`), as the player response (and so yt-dlp) hands it out. */
  baseUrl(videoId: string, itag: number): string;
  /** What the yt-dlp stand-in needs to list the broadcast's adaptive formats (its video state's `adaptive`). */
  stateFor(videoId: string): AdaptiveState;
  /** For `sq == head + 1` while live: `hold` (default) waits up to 1.5 × target for it; `not-found` answers 404 at once. */
  aheadOfHead: 'hold' | 'not-found';
  /** Consulted for each request whose URL is valid; a non-null answer replaces the normal one. */
  fault: ((request: { method: string; videoId: string; itag: number; sq: number | null }) => GooglevideoFault) | null;
  /** Every request answered so far, in order. */
  requests: FragmentRequest[];
  /** Resolves once `count` answered requests match `match`. */
  seen(match: (request: FragmentRequest) => boolean, count: number): Promise<void>;
  /** Answers held requests, drops every connection and stops the server. */
  close(): Promise<void>;
}

interface Broadcast {
  material: FragmentMaterial;
  startMs: number;
  expireInSeconds: number;
  /** The head once ended by `end()`. */
  endedAt: number | null;
  /** Lost sq numbers, per itag (0: every itag). */
  lost: Map<number, Set<number>>;
}

/** A request waiting for its fragment to be made. */
interface Held {
  videoId: string;
  timer: NodeJS.Timeout;
  settle(): void;
}

/** What the stand-in's controls and its request handler share. */
interface Station {
  sigSecret: string;
  broadcasts: Map<string, Broadcast>;
  held: Set<Held>;
  /** `seen` promises still waiting; each says whether it is done now. */
  waiters: Array<() => boolean>;
}

/** One request being answered: what its URL names, and how to answer it (which records it). */
interface Exchange {
  method: string;
  videoId: string;
  itag: number;
  sq: number | null;
  answer(status: number, headers?: http.OutgoingHttpHeaders, body?: Buffer): void;
}

const EXPOSED = [
  'Client-Protocol',
  'Content-Length',
  'Content-Type',
  'X-Content-Type-Options',
  'X-Head-Seqnum',
  'X-Head-Time-Millis',
  'X-Head-Time-Sec',
  'X-Sequence-Num',
  'X-Walltime-Ms',
];

/** Starts a googlevideo STAND-IN: broadcasts' fragments by `sq`, with X-Head-Seqnum, expiring signed URLs and lost fragments. */
export async function startGooglevideo(): Promise<Googlevideo> {
  const station: Station = { sigSecret: randomBytes(16).toString('hex'), broadcasts: new Map(), held: new Set(), waiters: [] };
  const googlevideo = controlsOf(station);
  const server = http.createServer((request, response) => answerRequest(station, googlevideo, request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  googlevideo.origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  googlevideo.close = async () => {
    for (const entry of station.held) entry.settle();
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  };
  return googlevideo;
}

/** The stand-in's controls over the station (everything but `origin` and `close`, which the server sets). */
function controlsOf(station: Station): Googlevideo {
  const on = (videoId: string): Broadcast => {
    const broadcast = station.broadcasts.get(videoId);
    if (broadcast === undefined) throw new Error(`googlevideo stand-in: ${videoId} is not on air`);
    return broadcast;
  };
  const googlevideo: Googlevideo = {
    origin: '',
    broadcast: (videoId, { material, startedSecondsAgo = 0, expireInSeconds = 21_540 }) => {
      station.broadcasts.set(videoId, { material, startMs: Date.now() - startedSecondsAgo * 1000, expireInSeconds, endedAt: null, lost: new Map() });
    },
    end: (videoId) => {
      const broadcast = on(videoId);
      broadcast.endedAt ??= headOf(broadcast);
      for (const entry of station.held) if (entry.videoId === videoId) entry.settle();
    },
    lose: (videoId, sq, itag = 0) => {
      const { lost } = on(videoId);
      lost.set(itag, (lost.get(itag) ?? new Set()).add(sq));
    },
    head: (videoId) => headOf(on(videoId)),
    baseUrl: (videoId, itag) => googlevideoUrl(googlevideo.stateFor(videoId), itag),
    stateFor: (videoId) => {
      const { material, expireInSeconds } = on(videoId);
      const formats = material.representations.map(({ itag, mime, codecs, width, height, fps, bitrate }) => ({
        itag,
        mime,
        codecs,
        width,
        height,
        fps,
        tbr: bitrate / 1000,
      }));
      return { origin: googlevideo.origin, videoId, sigSecret: station.sigSecret, targetSeconds: material.targetSeconds, expireInSeconds, formats };
    },
    aheadOfHead: 'hold',
    fault: null,
    requests: [],
    seen: (match, count) =>
      new Promise<void>((resolve) => {
        const done = () => {
          if (googlevideo.requests.filter(match).length < count) return false;
          resolve();
          return true;
        };
        if (!done()) station.waiters.push(done);
      }),
    close: async () => undefined,
  };
  return googlevideo;
}

/** Keeps an answered request and settles the `seen` promises it completes. */
function record(station: Station, googlevideo: Googlevideo, request: FragmentRequest): void {
  googlevideo.requests.push(request);
  station.waiters = station.waiters.filter((done) => !done());
}

/** Checks the URL as googlevideo does (403 for a dead or forged one, 404 for what is not on air), then answers it. */
function answerRequest(station: Station, googlevideo: Googlevideo, request: http.IncomingMessage, response: http.ServerResponse): void {
  const method = request.method ?? 'GET';
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const query = url.searchParams;
  const videoId = query.get('id')?.replace(/\.\d+$/, '') ?? null;
  const itag = query.has('itag') ? Number(query.get('itag')) : null;
  const sqValue = query.getAll('sq').at(-1); // yt-dlp's update_url_query replaces it; a later one wins
  const sq = sqValue === undefined ? null : Number(sqValue);
  const answer = (status: number, headers: http.OutgoingHttpHeaders = {}, body?: Buffer) => {
    response.writeHead(status, { 'access-control-expose-headers': EXPOSED.join(', '), 'x-content-type-options': 'nosniff', ...headers });
    response.end(body);
    record(station, googlevideo, { method, videoId, itag, sq, status });
  };
  if (url.pathname !== '/videoplayback' || videoId === null || itag === null || Number.isNaN(itag) || (sq !== null && !Number.isInteger(sq)))
    return answer(404);
  const expire = query.get('expire') ?? '';
  // `expire` is the second the URL dies (so a lifetime of 0 is already dead)
  if (!(Date.now() < Number(expire) * 1000) || query.get('sig') !== googlevideoSig(station.sigSecret, videoId, itag, expire)) return answer(403);
  const broadcast = station.broadcasts.get(videoId);
  const representation = broadcast?.material.representations.find((r) => r.itag === itag);
  if (broadcast === undefined || representation === undefined) return answer(404);
  const fault = googlevideo.fault?.({ method, videoId, itag, sq }) ?? null;
  if (fault === 'reset') {
    record(station, googlevideo, { method, videoId, itag, sq, status: 0 });
    return void request.socket.destroy();
  }
  if (fault !== null) return answer(fault === 'empty' ? 200 : fault, { 'content-type': representation.mime, 'content-length': 0 });
  answerSq(station, googlevideo, { method, videoId, itag, sq, answer }, broadcast, representation, true);
}

/** The head probe (no sq), a fragment up to the head, 404 past it or lost; `sq == head + 1` while live may be held for. */
function answerSq(
  station: Station,
  googlevideo: Googlevideo,
  exchange: Exchange,
  broadcast: Broadcast,
  representation: FragmentRepresentation,
  holding: boolean,
): void {
  const { sq, itag, answer } = exchange;
  const head = headOf(broadcast);
  const headers = headHeaders(broadcast, head, sq);
  if (sq === null) return answer(200, { ...headers, 'content-type': representation.mime, 'content-length': 0 });
  const lost = broadcast.lost.get(itag)?.has(sq) === true || broadcast.lost.get(0)?.has(sq) === true;
  if (sq <= head && !lost) {
    return void fragmentBytes(representation, sq).then(
      (body) => answer(200, { ...headers, 'content-type': representation.mime, 'content-length': body.length }, body),
      () => answer(500, headers),
    );
  }
  if (!holding || lost || sq !== head + 1 || !isLive(broadcast) || googlevideo.aheadOfHead !== 'hold') return answer(404, headers);
  // hang=1: held until it is made (at most 1.5 × target; `end()` settles it at once), then answered again
  const targetMs = broadcast.material.targetSeconds * 1000;
  const madeInMs = broadcast.startMs + sq * targetMs - Date.now() + 5; // a timer may fire a millisecond early
  const entry: Held = {
    videoId: exchange.videoId,
    timer: setTimeout(() => entry.settle(), Math.min(Math.max(madeInMs, 0), 1.5 * targetMs)),
    settle: () => {
      clearTimeout(entry.timer);
      if (station.held.delete(entry)) answerSq(station, googlevideo, exchange, broadcast, representation, false);
    },
  };
  station.held.add(entry);
}

/** The newest fragment made: one per target since the start, until the material's last (the broadcast's end) or `end()`. */
function headOf(broadcast: Broadcast): number {
  const made = Math.floor((Date.now() - broadcast.startMs) / (broadcast.material.targetSeconds * 1000));
  return broadcast.endedAt ?? Math.max(0, Math.min(made, broadcast.material.fragmentCount - 1));
}

function isLive(broadcast: Broadcast): boolean {
  return broadcast.endedAt === null && headOf(broadcast) < broadcast.material.fragmentCount - 1;
}

/** The headers googlevideo sends with every fragment answer; only X-Head-Seqnum is read by yt-dlp and ytarchive. */
function headHeaders(broadcast: Broadcast, head: number, sq: number | null): http.OutgoingHttpHeaders {
  const headMs = head * broadcast.material.targetSeconds * 1000;
  return {
    'x-head-seqnum': head,
    ...(sq === null ? {} : { 'x-sequence-num': sq }),
    'x-head-time-sec': Math.floor(headMs / 1000),
    'x-head-time-millis': headMs,
    'x-walltime-ms': Date.now(),
  };
}
