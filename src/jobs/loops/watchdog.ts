// Decisions: docs/decisions/0029-jobs-woken-not-polled.md, docs/decisions/0092-leases-and-worker-sessions.md
import { MOVED_ON_BY } from '../../core/capture/capture-lifecycle.js';
import type { CaptureLease, EncoderLog } from '../../core/capture/ports.js';
import type { ChangeFeed } from '../../shared/change-feed.js';
import type { Scheduler } from '../../core/scheduler.js';
import type { BackgroundLog, WorkerSettings } from '../job-work.js';
import { wakeWhenDue, type CancelWakeUp } from '../../shared/wake-ups.js';

export interface WatchdogOptions {
  staleAfterSeconds: number;
  /** While a stale capture waits for a worker, it is asked for again this often. */
  everySeconds: number;
  /** LEASE_NOTIFY_CHANNEL's notifications (notify-channels.ts), from any process: a capture started, ended or was handed over. */
  wake: ChangeFeed;
  /** The longest it sleeps without looking, whatever the notifications said (KURA_JOB_POLL_SECONDS). */
  backstopSeconds: number;
  onError: (error: Error) => void;
}

type WatchdogDeps = { captures: CaptureLease & EncoderLog; scheduler: Scheduler };

/** How often a watchdog looks for workers gone while leases are held (one query of the sessions). */
const DEATH_LOOK_MS = 2000;

/**
 * The capture-watchdog loop of the catalogue: woken by LEASE_NOTIFY_CHANNEL, its backstop its
 * timer; while a stale capture waits for a worker, it asks again every third of the stale time.
 */
export function startWatchdogLoop(
  context: { deps: WatchdogDeps; settings: Pick<WorkerSettings, 'staleAfterSeconds'>; log: BackgroundLog },
  wake: { feed: ChangeFeed; everySeconds: number },
): () => void {
  const { staleAfterSeconds } = context.settings;
  return startWatchdog(context.deps, {
    staleAfterSeconds,
    everySeconds: Math.max(1, staleAfterSeconds / 3),
    wake: wake.feed,
    backstopSeconds: wake.everySeconds,
    onError: (error) => context.log.warn({ err: error }, 'capture watchdog failed'),
  });
}

/**
 * Finds captures whose worker stopped renewing its lease (crashed, killed, cut off) or whose
 * worker's database session ended (gone: it died) and asks for the capture (before captures not
 * started yet), or the finalize, again; the next worker resumes from the stored progress. It
 * looks at start (a restarted worker takes its own captures back at once), every 2 s while a
 * lease is held, when a lease is taken or given up anywhere, and at the backstop: with nothing
 * recording it sleeps. Returns a stop function.
 */
export function startWatchdog(deps: WatchdogDeps, options: WatchdogOptions): () => void {
  let cancelLook: CancelWakeUp = () => undefined;
  let looking = false;
  let again = false;
  let stopped = false;

  /** The next look without a notification: when the oldest lease would go stale, or at the backstop. */
  const lookIn = (ms: number) => {
    cancelLook();
    cancelLook = wakeWhenDue(ms, options.backstopSeconds * 1000, () => void look());
  };

  const look = async (): Promise<void> => {
    if (stopped) return;
    if (looking) {
      again = true; // the look in flight may have read the leases before what woke us
      return;
    }
    looking = true;
    try {
      do {
        again = false;
        const { stale, nextStaleInMs } = await deps.captures.leases(options.staleAfterSeconds);
        for (const { livestreamId, state } of stale) {
          if (state === 'chat') {
            await deps.scheduler.chat(livestreamId); // its worker died; the video capture goes on
          } else if (MOVED_ON_BY[state] === 'capture') {
            await deps.captures.appendLog(livestreamId, ['[kura] the recording worker stopped answering; handing the capture to another worker']);
            await deps.scheduler.capture(livestreamId, { resume: true });
          } else {
            await deps.scheduler.finalize(livestreamId); // its finalize died with its worker, or was never queued
          }
        }
        // while any worker holds a lease, look again soon: its death shows at once (its session ended), not when the lease goes stale
        lookIn(stale.length > 0 ? options.everySeconds * 1000 : nextStaleInMs === null ? Infinity : Math.min(nextStaleInMs, DEATH_LOOK_MS));
      } while (again && !stopped);
    } catch (error) {
      options.onError(error as Error);
      lookIn(options.everySeconds * 1000);
    } finally {
      looking = false;
    }
  };

  options.wake.onChange(() => void look());
  void look();
  return () => {
    stopped = true;
    cancelLook();
  };
}
