// Research: docs/research/youtube-live-contract.md §1.5, §1.6, §5.1, §7 (the stand-ins' knobs)
// The clock of one broadcast on the googlevideo STAND-IN (test/support/googlevideo-stand-in.ts):
// where its head is, what is still inside YouTube's retention window, stalls and resumes.
import type http from 'node:http';
import type { FragmentMaterial } from './youtube-fragments.js';

/** yt-dlp `_live_adaptive_fragments` MAX_DURATION and ytarchive `LiveMaximumSeekable`: 5 days. */
export const RETENTION_SECONDS = 432_000;

export interface Broadcast {
  material: FragmentMaterial;
  /** When sq 0 was made; moved on by the length of each stall, so a resume loses nothing. */
  startMs: number;
  expireInSeconds: number;
  /** How far back fragments are kept, in seconds. */
  retentionSeconds: number;
  /** The sq the material's first chunk is served as. */
  firstSq: number;
  /** The head once ended by `end()` (or `process()`). */
  endedAt: number | null;
  /** Where a `stall()` freezes the head, and the moment it froze (or will) there, until `resume()`. */
  stalled: { head: number; sinceMs: number } | null;
  /** The VOD has been processed: every URL of it is 403. */
  processed: boolean;
  /** Set by `withdraw()`: URLs minted up to this second (Unix) are 403 though their `expire` is ahead. */
  withdrawnUpTo: number | null;
  /** Lost sq numbers, per itag (0: every itag). */
  lost: Map<number, Set<number>>;
}

const targetMsOf = (broadcast: Broadcast): number => broadcast.material.targetSeconds * 1000;

/** The last sq there is material for: the broadcast ends by itself when its head gets there. */
export function lastSqOf(broadcast: Broadcast): number {
  return broadcast.firstSq + broadcast.material.fragmentCount - 1;
}

/** The newest fragment made: one per target since the start, frozen by a stall or the end, at most the material's last. */
export function headOf(broadcast: Broadcast, now = Date.now()): number {
  if (broadcast.endedAt !== null) return broadcast.endedAt;
  const made = Math.max(0, Math.min(Math.floor((now - broadcast.startMs) / targetMsOf(broadcast)), lastSqOf(broadcast)));
  return broadcast.stalled === null ? made : Math.min(made, broadcast.stalled.head);
}

/** Still on air: not ended, and the head has not reached the material's last fragment (a stalled broadcast is live). */
export function isLive(broadcast: Broadcast): boolean {
  return broadcast.endedAt === null && headOf(broadcast) < lastSqOf(broadcast);
}

/** The oldest sq googlevideo still keeps: `head − floor(retentionSeconds / targetSeconds)` (never below 0). */
export function retentionWindowStart(head: number, retentionSeconds: number, targetSeconds: number): number {
  return Math.max(0, head - Math.floor(retentionSeconds / targetSeconds));
}

/** Why `sq` cannot be served although it is not past the head: out of the window, not materialised, or lost. */
export function missing(broadcast: Broadcast, head: number, sq: number, itag: number): boolean {
  if (sq < retentionWindowStart(head, broadcast.retentionSeconds, broadcast.material.targetSeconds)) return true;
  if (sq < broadcast.firstSq) return true;
  return broadcast.lost.get(itag)?.has(sq) === true || broadcast.lost.get(0)?.has(sq) === true;
}

/** The material's chunk index of `sq`. */
export function chunkIndexOf(broadcast: Broadcast, sq: number): number {
  return sq - broadcast.firstSq;
}

/**
 * Freezes the head (an encoder reconnect) where it is, or once it reaches `at` (a pause at a
 * fragment a loaded machine cannot be late for): nothing past it is made until `resume`.
 */
export function stallBroadcast(broadcast: Broadcast, now = Date.now(), at?: number): void {
  if (broadcast.stalled !== null || broadcast.endedAt !== null) return;
  const head = headOf(broadcast, now);
  broadcast.stalled = at === undefined || at <= head ? { head, sinceMs: now } : { head: at, sinceMs: broadcast.startMs + at * targetMsOf(broadcast) };
}

/** Goes on from the fragment after the frozen head: the clock moves on by the stall's length, so no sq is skipped. */
export function resumeBroadcast(broadcast: Broadcast, now = Date.now()): void {
  if (broadcast.stalled === null) return;
  broadcast.startMs += Math.max(0, now - broadcast.stalled.sinceMs);
  broadcast.stalled = null;
}

/** How long a request for `sq == head + 1` waits for it (hang=1): until it is made, at most 1.5 × target; a stalled head makes nothing. */
export function holdMsFor(broadcast: Broadcast, sq: number, now = Date.now()): number {
  const targetMs = targetMsOf(broadcast);
  if (broadcast.stalled !== null && sq > broadcast.stalled.head) return 1.5 * targetMs;
  const madeInMs = broadcast.startMs + sq * targetMs - now + 5; // a timer may fire a millisecond early
  return Math.min(Math.max(madeInMs, 0), 1.5 * targetMs);
}

/** The headers googlevideo sends with every fragment answer; only X-Head-Seqnum is read by yt-dlp and ytarchive. */
export function headHeaders(broadcast: Broadcast, head: number, sq: number | null): http.OutgoingHttpHeaders {
  const headMs = head * targetMsOf(broadcast);
  return {
    'x-head-seqnum': head,
    ...(sq === null ? {} : { 'x-sequence-num': sq }),
    'x-head-time-sec': Math.floor(headMs / 1000),
    'x-head-time-millis': headMs,
    'x-walltime-ms': Date.now(),
  };
}
