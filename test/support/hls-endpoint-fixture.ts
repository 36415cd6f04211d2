import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { startHlsFixture, type HlsFixture } from './hls-fixture.js';

/**
 * An HLS endpoint that is live only sometimes, as MediaMTX, Owncast or nginx-rtmp serve one: one
 * playlist URL that answers 404 while offline, and on which each broadcast (ffmpeg, real time)
 * starts its media sequence numbers at 0 again.
 */
export interface HlsEndpointFixture {
  /** The playlist URL on 127.0.0.1, the same for every broadcast; 404 while offline. */
  readonly url: string;
  /** Every request path so far (playlist and segments, whoever asked). */
  readonly requests: string[];
  /** Answers requests with a fault while set (see HlsFixture.fail); null: served as they are. */
  fail: HlsFixture['fail'];
  /**
   * Goes on air with broadcast number `n` (1, 2, … in call order): ffmpeg writes a live playlist
   * of 1 s segments named `b{n}-seg00000.ts`… (media sequence from 0), without ENDLIST at the end.
   * Only one broadcast at a time: go offline first.
   */
  broadcast(options: { seconds: number; fps?: number; listSize?: number }): EndpointBroadcast;
  /**
   * Goes offline: stops a broadcast still running (SIGKILL) and deletes the playlist, which then
   * answers 404, as MediaMTX's does when the publisher leaves. The segments stay (a fetch under
   * way finishes), but nothing lists them any more.
   */
  goOffline(): Promise<void>;
  /** Resolves once `count` playlist requests were answered 404 since the last `goOffline()`. */
  offlineAnswers(count: number): Promise<void>;
  /** Resolves once the playlist was requested `count` more times, whatever the answer. */
  playlistAsked(count: number): Promise<void>;
  /** Stops a running broadcast and the server. */
  close(): Promise<void>;
}

export interface EndpointBroadcast {
  readonly number: number;
  /** The video frames it sends (seconds × fps): a complete archive of it has exactly these. */
  readonly frames: number;
  /** Matches the requests of this broadcast's segments. */
  readonly segmentRequest: RegExp;
  /** Resolves once the playlist is written: the endpoint is live. */
  readonly onAir: Promise<void>;
  /** Resolves once ffmpeg wrote its last segment (the playlist stays, live-looking, until `goOffline`), with how many it wrote. */
  readonly ended: Promise<number>;
  /** Resolves once every segment of the ended broadcast was requested at least once (a recorder has them all). */
  fetchedAll(): Promise<void>;
}

const PLAYLIST = /\/live\/index\.m3u8$/;

export async function startHlsEndpointFixture(): Promise<HlsEndpointFixture> {
  const inner = await startHlsFixture({ seconds: 1, announced: false });
  const liveDir = path.join(inner.dir, 'live');
  let broadcasts = 0;
  let running: Promise<unknown> = Promise.resolve();
  let offline = false;
  let offlineAnswered = 0;
  let listeners: Array<() => boolean> = [];
  const playlistRequests = () => inner.requests.filter((r) => PLAYLIST.test(r)).length;
  /** Resolves once `done()` holds, checked again at every request. */
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => done() && (resolve(), true);
      if (!check()) listeners.push(check);
    });
  const endpoint: HlsEndpointFixture = {
    url: inner.url,
    requests: inner.requests,
    fail: null,
    broadcast({ seconds, fps = 30, listSize = 0 }) {
      const number = ++broadcasts;
      offline = false;
      const prefix = `b${number}-`;
      const onAir = inner.onAir();
      const ended = inner.start({ seconds, fps, listSize, endlist: false, segmentPrefix: prefix }).then(() => segmentCount(liveDir));
      running = ended.catch(() => undefined); // counted before goOffline deletes the playlist
      const segmentRequest = new RegExp(`/${prefix}seg\\d+\\.ts$`);
      const fetchedAll = async () => {
        const count = await ended;
        await until(() => new Set(inner.requests.filter((r) => segmentRequest.test(r))).size >= count);
      };
      return { number, frames: seconds * fps, segmentRequest, onAir, ended, fetchedAll };
    },
    async goOffline() {
      inner.kill();
      await running;
      for (const name of await readdir(liveDir)) if (name.startsWith('index.m3u8')) await rm(path.join(liveDir, name), { force: true });
      offline = true;
      offlineAnswered = 0;
    },
    offlineAnswers: (count) => until(() => offlineAnswered >= count),
    playlistAsked(count) {
      const target = playlistRequests() + count;
      return until(() => playlistRequests() >= target);
    },
    close: () => inner.close(),
  };
  inner.fail = (requestPath, rawUrl, headers) => {
    const fault = endpoint.fail?.(requestPath, rawUrl, headers) ?? null;
    // counted before it is answered: the test's next step may begin while the 404 is on its way
    if (fault === null && offline && PLAYLIST.test(requestPath)) offlineAnswered++;
    listeners = listeners.filter((check) => !check());
    return fault;
  };
  return endpoint;
}

/** The segments the finished broadcast's playlist lists. */
async function segmentCount(liveDir: string): Promise<number> {
  const playlist = await readFile(path.join(liveDir, 'index.m3u8'), 'utf8');
  // a window (listSize) lists only the last segments: those before it are counted by its media sequence
  const first = Number(/^#EXT-X-MEDIA-SEQUENCE:(\d+)$/m.exec(playlist)?.[1] ?? 0);
  return first + playlist.split('\n').filter((line) => line.startsWith('#EXTINF')).length;
}
