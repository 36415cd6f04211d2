// Research: docs/research/youtube-live-contract.md §1, §5.1 (fake googlevideo), §7 (its knobs)
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { googlevideoSig, googlevideoUrl, type AdaptiveState } from './googlevideo-url.mjs';
import {
  chunkIndexOf,
  headHeaders,
  headOf,
  holdMsFor,
  isLive,
  missing,
  resumeBroadcast,
  RETENTION_SECONDS,
  stallBroadcast,
  type Broadcast,
} from './googlevideo-broadcast.js';
import { writeBody, type Throttle } from './googlevideo-body.js';
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
  /**
   * How far back fragments are kept (default 432000, yt-dlp MAX_DURATION / ytarchive
   * LiveMaximumSeekable): an sq below `head − floor(retentionSeconds / targetSeconds)` is 404.
   */
  retentionSeconds?: number;
  /**
   * The sq the material's first chunk is served as (default 0): chunk i is sq `firstSq + i`, an sq
   * below it is 404 (not materialised), and the broadcast ends by itself at `firstSq + fragmentCount − 1`.
   * Set it near the head a long `startedSecondsAgo` gives (`sqAgo(startedSecondsAgo, targetSeconds)`).
   */
  firstSq?: number;
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
  /** Ends the broadcast now: the head freezes where it is; what is past it is 404 for good; up to it is served (post_live DVR). */
  end(videoId: string): void;
  /** The VOD is processed: ends the broadcast if live, and every URL of it (GET and HEAD, with or without sq) is 403 from now on. */
  process(videoId: string): void;
  /** Freezes the head (an encoder reconnect) now, or once it reaches `at`: X-Head-Seqnum stays, `sq == head + 1` is held then 404, until `resume`. */
  stall(videoId: string, at?: number): void;
  /** Goes on from the fragment after the frozen head, with nothing lost (the broadcast's clock moves on by the stall). */
  resume(videoId: string): void;
  /**
   * Withdraws every URL of it minted so far (this second included): they answer 403 before their
   * `expire`, and only URLs minted from the next second on work. A client learns it from the 403
   * alone, as from YouTube (yt-dlp#17484; ytarchive renews on any 403, whatever `expire` says).
   */
  withdraw(videoId: string): void;
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
  /** A slow link (default null): fragment bodies are written in 50-ms chunks paced to `bytesPerSecond`; headers go at once. */
  throttle: Throttle | null;
  /** Default null (no limit): a request with an sq arriving while this many are being answered (held, throttled…) gets 401. */
  maxConcurrent: number | null;
  /** Requests with an sq being answered now (a 401 for the limit is not counted). */
  readonly inFlight: number;
  /** The most requests with an sq ever answered at once. */
  readonly inFlightPeak: number;
  /** Every request answered so far, in order (a throttled one once its body is all written). */
  requests: FragmentRequest[];
  /** Resolves once `count` answered requests match `match`. */
  seen(match: (request: FragmentRequest) => boolean, count: number): Promise<void>;
  /** Answers held requests, drops every connection and stops the server. */
  close(): Promise<void>;
}

/** The sq a broadcast that began `startedSecondsAgo` has as its head at once (what to give `firstSq` a few fragments below). */
export function sqAgo(startedSecondsAgo: number, targetSeconds: number): number {
  return Math.floor(startedSecondsAgo / targetSeconds);
}

export { RETENTION_SECONDS, retentionWindowStart } from './googlevideo-broadcast.js';
export type { Throttle } from './googlevideo-body.js';

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
  inFlight: number;
  inFlightPeak: number;
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

/** Starts a googlevideo STAND-IN: broadcasts' fragments by `sq`, with X-Head-Seqnum, expiring signed URLs, lost fragments and YouTube's bad days as knobs. */
export async function startGooglevideo(): Promise<Googlevideo> {
  const station: Station = { sigSecret: randomBytes(16).toString('hex'), broadcasts: new Map(), held: new Set(), waiters: [], inFlight: 0, inFlightPeak: 0 };
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
  const settleHeld = (videoId: string) => {
    for (const entry of station.held) if (entry.videoId === videoId) entry.settle();
  };
  const googlevideo: Googlevideo = {
    origin: '',
    broadcast: (videoId, { material, startedSecondsAgo = 0, expireInSeconds = 21_540, retentionSeconds = RETENTION_SECONDS, firstSq = 0 }) => {
      station.broadcasts.set(videoId, {
        material,
        startMs: Date.now() - startedSecondsAgo * 1000,
        expireInSeconds,
        retentionSeconds,
        firstSq,
        endedAt: null,
        stalled: null,
        processed: false,
        withdrawnUpTo: null,
        lost: new Map(),
      });
    },
    end: (videoId) => {
      const broadcast = on(videoId);
      broadcast.endedAt ??= headOf(broadcast);
      settleHeld(videoId);
    },
    process: (videoId) => {
      googlevideo.end(videoId);
      on(videoId).processed = true;
    },
    withdraw: (videoId) => {
      on(videoId).withdrawnUpTo = Math.floor(Date.now() / 1000);
    },
    stall: (videoId, at) => stallBroadcast(on(videoId), Date.now(), at),
    resume: (videoId) => resumeBroadcast(on(videoId)),
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
    throttle: null,
    maxConcurrent: null,
    get inFlight() {
      return station.inFlight;
    },
    get inFlightPeak() {
      return station.inFlightPeak;
    },
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

/** Counts a request with an sq as in flight until its response is over; false (and 401) when `maxConcurrent` are already. */
function admit(station: Station, googlevideo: Googlevideo, response: http.ServerResponse): boolean {
  if (googlevideo.maxConcurrent !== null && station.inFlight >= googlevideo.maxConcurrent) return false;
  station.inFlight += 1;
  station.inFlightPeak = Math.max(station.inFlightPeak, station.inFlight);
  response.once('close', () => (station.inFlight -= 1));
  return true;
}

/** Checks the URL as googlevideo does (403 for a dead, forged or processed one, 404 for what is not on air), then answers it. */
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
    writeBody(response, body, status === 200 ? googlevideo.throttle : null, () => record(station, googlevideo, { method, videoId, itag, sq, status }));
  };
  if (url.pathname !== '/videoplayback' || videoId === null || itag === null || Number.isNaN(itag) || (sq !== null && !Number.isInteger(sq)))
    return answer(404);
  const expire = query.get('expire') ?? '';
  // `expire` is the second the URL dies (so a lifetime of 0 is already dead)
  if (!(Date.now() < Number(expire) * 1000) || query.get('sig') !== googlevideoSig(station.sigSecret, videoId, itag, expire)) return answer(403);
  const broadcast = station.broadcasts.get(videoId);
  // the processed VOD: "Download link has likely expired and the stream has probably finished processing" (ytarchive)
  if (broadcast?.processed === true) return answer(403);
  // withdrawn before its expire: minted at `expire − expireInSeconds`
  if (broadcast !== undefined && broadcast.withdrawnUpTo !== null && Number(expire) - broadcast.expireInSeconds <= broadcast.withdrawnUpTo) return answer(403);
  const representation = broadcast?.material.representations.find((r) => r.itag === itag);
  if (broadcast === undefined || representation === undefined) return answer(404);
  // too many at once: ytarchive's --threads help, "a chance at causing the download to start failing with HTTP 401"
  if (sq !== null && !admit(station, googlevideo, response)) return answer(401);
  const fault = googlevideo.fault?.({ method, videoId, itag, sq }) ?? null;
  if (fault === 'reset') {
    record(station, googlevideo, { method, videoId, itag, sq, status: 0 });
    return void request.socket.destroy();
  }
  if (fault !== null) return answer(fault === 'empty' ? 200 : fault, { 'content-type': representation.mime, 'content-length': 0 });
  answerSq(station, googlevideo, { method, videoId, itag, sq, answer }, broadcast, representation, true);
}

/** The head probe (no sq), a fragment up to the head, 404 past it, lost or out of the window; `sq == head + 1` while live may be held for. */
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
  const gone = missing(broadcast, head, sq, itag);
  if (sq <= head && !gone) {
    return void fragmentBytes(representation, chunkIndexOf(broadcast, sq)).then(
      (body) => answer(200, { ...headers, 'content-type': representation.mime, 'content-length': body.length }, body),
      () => answer(500, headers),
    );
  }
  if (!holding || gone || sq !== head + 1 || !isLive(broadcast) || googlevideo.aheadOfHead !== 'hold') return answer(404, headers);
  // hang=1: held until it is made (at most 1.5 × target; `end()` settles it at once), then answered again
  const entry: Held = {
    videoId: exchange.videoId,
    timer: setTimeout(() => entry.settle(), holdMsFor(broadcast, sq)),
    settle: () => {
      clearTimeout(entry.timer);
      if (station.held.delete(entry)) answerSq(station, googlevideo, exchange, broadcast, representation, false);
    },
  };
  station.held.add(entry);
}
