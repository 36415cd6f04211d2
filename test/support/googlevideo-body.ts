// Research: docs/research/youtube-live-contract.md §7 (the stand-ins' knobs: throttle)
// How the googlevideo STAND-IN writes a fragment's body: at once, or paced to a slow link's rate.
import type http from 'node:http';

/** A slow link: each body is written in small chunks, `bytesPerSecond` at most (the headers go at once). */
export interface Throttle {
  bytesPerSecond: number;
}

const TICK_MS = 50;

/** Writes `body` and ends the response; throttled, a chunk every 50 ms. Calls `done` once it is all written (or the client left). */
export function writeBody(response: http.ServerResponse, body: Buffer | undefined, throttle: Throttle | null, done: () => void): void {
  if (body === undefined || body.length === 0 || throttle === null) {
    response.end(body);
    return done();
  }
  response.flushHeaders();
  const chunk = Math.max(1, Math.floor((throttle.bytesPerSecond * TICK_MS) / 1000));
  const started = Date.now();
  let written = 0;
  const step = () => {
    if (response.destroyed) return done();
    // as many bytes as the rate allows by now, so timer lateness does not slow the link further
    const allowed = Math.min(body.length, Math.max(written + 1, Math.floor(((Date.now() - started) * throttle.bytesPerSecond) / 1000)));
    const until = Math.min(allowed, written + chunk * 4);
    response.write(body.subarray(written, until));
    written = until;
    if (written >= body.length) {
      response.end();
      return done();
    }
    setTimeout(step, TICK_MS);
  };
  setTimeout(step, TICK_MS);
}
