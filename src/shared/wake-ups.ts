// Decisions: docs/decisions/0086-one-wake-up-a-minute.md
/**
 * The process's one timer for what runs on a period (the loops' chores, the lag gate) and for the
 * backstops (the longest a loop sleeps without being told anything). Each wake-up of an idle
 * process costs this machine a couple of milliseconds of CPU whatever it then does, and separate
 * timers of the same period, set a few milliseconds apart, wake it that many times. Here a chore
 * of period P runs on the multiples of P counted from one origin, and a backstop of a minute or
 * more comes on the last whole minute from that origin before its time, so the chores of one, two
 * and five minutes and the backstops of an idle process share one wake-up a minute.
 *
 * What `run` does must not throw (it starts its work and reports its own failures).
 */

/** Cancels a wake-up that has not come yet (and ends a periodic one). */
export type CancelWakeUp = () => void;

/** The grid of the backstops: the whole minutes from the origin. */
const MINUTE_MS = 60_000;
/** A wake-up runs what is due within this of its time (a timer fires a millisecond either side of performance.now()). */
const SLACK_MS = 2;

interface WakeUp {
  at: number;
  periodMs?: number;
  run: () => void;
}

const pending = new Set<WakeUp>();
/** Where the grid starts (performance.now() at the first wake-up asked for); forgotten when none is pending. */
let origin: number | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;
let timerAt = Infinity;

/** Runs `run` on every multiple of `periodMs` from the shared origin, the first one still to come. */
export function wakeEvery(periodMs: number, run: () => void): CancelWakeUp {
  if (!(periodMs > 0)) throw new RangeError(`a period must be positive, not ${periodMs} ms`);
  const start = gridOrigin();
  return add({ at: multipleAfter(start, performance.now(), periodMs), periodMs, run });
}

/** Runs `run` once, `ms` from now (for a time that matters: a lease's end, a retry). */
function wakeAfter(ms: number, run: () => void): CancelWakeUp {
  return add({ at: performance.now() + Math.max(0, ms), run });
}

/**
 * Runs `run` once, at most `ms` from now: a backstop of a minute or more comes on the last whole
 * minute of the grid before its time (so up to a minute early), with the other wake-ups of that minute.
 */
function wakeWithin(ms: number, run: () => void): CancelWakeUp {
  if (!(ms >= MINUTE_MS)) return wakeAfter(ms, run);
  const start = gridOrigin();
  const latest = performance.now() + ms;
  return add({ at: latest - ((latest - start) % MINUTE_MS), run });
}

/** Runs `run` once: at `dueInMs` when that comes before the backstop (exactly), else by the backstop (wakeWithin). */
export function wakeWhenDue(dueInMs: number, backstopMs: number, run: () => void): CancelWakeUp {
  return dueInMs < backstopMs ? wakeAfter(dueInMs, run) : wakeWithin(backstopMs, run);
}

function gridOrigin(): number {
  origin ??= Math.round(performance.now());
  return origin;
}

/** The first `start + k·periodMs` later than `after`. */
function multipleAfter(start: number, after: number, periodMs: number): number {
  return start + (Math.floor((after - start) / periodMs) + 1) * periodMs;
}

function add(wakeUp: WakeUp): CancelWakeUp {
  pending.add(wakeUp);
  arm();
  return () => {
    if (pending.delete(wakeUp)) arm();
  };
}

/** Sets the one timer for the first wake-up pending; moves it only when that changed. */
function arm(): void {
  let first = Infinity;
  for (const wakeUp of pending) first = Math.min(first, wakeUp.at);
  if (first === timerAt) return;
  if (timer !== null) clearTimeout(timer);
  timer = null;
  timerAt = first;
  if (first === Infinity) {
    origin = null;
    return;
  }
  timer = setTimeout(wake, Math.max(0, first - performance.now()));
  timer.unref();
}

function wake(): void {
  timer = null;
  timerAt = Infinity;
  const now = performance.now();
  for (const wakeUp of [...pending]) {
    // one run before may have cancelled it
    if (!pending.has(wakeUp) || wakeUp.at > now + SLACK_MS) continue;
    if (wakeUp.periodMs === undefined) pending.delete(wakeUp);
    else wakeUp.at = multipleAfter(origin ?? now, now + SLACK_MS, wakeUp.periodMs);
    try {
      wakeUp.run();
    } catch (error) {
      // as from a timer of its own: the process hears of it, the other wake-ups still run
      setImmediate(() => {
        throw error;
      });
    }
  }
  arm();
}
