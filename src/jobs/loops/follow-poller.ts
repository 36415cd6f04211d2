// Decisions: docs/decisions/0029-jobs-woken-not-polled.md
import { checkFollow, type CheckDeps, type CheckPolicy } from '../../core/follows/check-follow.js';
import type { Follow } from '../../core/follows/follow.js';
import type { CheckOutcome } from '../../core/follows/ports.js';
import type { ChangeFeed } from '../../core/livestream/ports.js';
import { Alarm } from '../alarm.js';
import type { BackgroundLog } from '../job-work.js';

/** What the follow poller of a worker checks with, and how many follows at once. */
export interface FollowChecking {
  deps: CheckDeps;
  /** Follows checked at once by this worker (KURA_FOLLOW_CONCURRENCY). */
  concurrency: number;
  policy: CheckPolicy;
}

/** The follow-poller loop of the catalogue: woken by FOLLOW_NOTIFY_CHANNEL, its backstop its timer. */
export function startFollowPollerLoop(
  context: { follows: FollowChecking; log: BackgroundLog },
  wake: { feed: ChangeFeed; everySeconds: number },
): () => Promise<void> {
  const { deps, concurrency, policy } = context.follows;
  return startFollowPoller(deps, {
    concurrency,
    policy,
    wake: wake.feed,
    backstopSeconds: wake.everySeconds,
    onError: (error, followId) => context.log.warn({ err: error, followId }, 'checking a follow failed'),
    onChecked: (follow, outcome) => {
      const name = follow.title ?? follow.channelName;
      if (outcome.queued > 0) context.log.info({ followId: follow.id, queued: outcome.queued }, `follow "${name}" queued ${outcome.queued} stream(s)`);
      if (outcome.becameUnhealthy) context.log.warn({ followId: follow.id }, `follow "${name}" is unhealthy: its signals keep failing`);
    },
  });
}

export interface PollerOptions {
  /** Follows checked at once by this worker (KURA_FOLLOW_CONCURRENCY). */
  concurrency: number;
  policy: CheckPolicy;
  /** How long a claimed follow is this worker's before another may take it (a crashed worker's claim runs out). Default 300 s. */
  leaseSeconds?: number;
  /** FOLLOW_NOTIFY_CHANNEL's notifications (notify-channels.ts), from any process. */
  wake: ChangeFeed;
  /** The longest the poller sleeps without looking, whatever the notifications said (KURA_JOB_POLL_SECONDS). */
  backstopSeconds: number;
  /** Told of each check's outcome (the operator's log lines). */
  onChecked?: (follow: Follow, outcome: CheckOutcome) => void;
  /** A check or claim that failed (the follow is due again when its lease runs out). */
  onError: (error: Error, followId: string | null) => void;
}

/** A follow due but not claimed is another worker's claim in flight: look again this much later rather than at once. */
const RECHECK_MS = 1_000;

/**
 * Claims the follows due (as many as there are free slots; several workers never claim one follow
 * at once) and checks each; then sleeps until the earliest next check of any follow, or until a
 * follow is due sooner (a notification), a check ends, or the backstop. The returned stop function
 * waits for running checks.
 */
export function startFollowPoller(deps: CheckDeps, options: PollerOptions): () => Promise<void> {
  const running = new Set<Promise<void>>();
  const backstopMs = options.backstopSeconds * 1000;
  let claiming = false;
  let again = false;
  let stopped = false;
  const alarm = new Alarm(() => void claim());
  /** Claims at `at` (epoch ms; now when past), unless a claim is set earlier already. */
  const claimAt = (at: number) => (at <= Date.now() ? void claim() : alarm.setIn(at - Date.now()));

  const ended = (check: Promise<void>) => {
    running.delete(check);
    void claim(); // its slot is free
  };

  const claim = async (): Promise<void> => {
    if (stopped) return;
    if (claiming) {
      again = true; // the claim in flight may have missed what woke us
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        const free = options.concurrency - running.size;
        if (free <= 0) return; // the next check to end claims again
        const claimed = await deps.follows.claimDue(new Date(), options.leaseSeconds ?? 300, free);
        for (const follow of claimed) running.add(checkInBackground(deps, follow, options, ended));
        if (claimed.length < free && !again) {
          const next = (await deps.follows.nextDue())?.getTime() ?? Infinity;
          const now = Date.now();
          claimAt(Math.min(next > now ? next : now + RECHECK_MS, now + backstopMs));
        }
      } while (again && !stopped);
    } catch (error) {
      options.onError(error as Error, null);
      claimAt(Date.now() + backstopMs); // the notifications' reconnection claims sooner
    } finally {
      claiming = false;
    }
  };

  // no payload: the notifications (re)connected or were lost, and follows may have changed meanwhile
  options.wake.onChange((payload) => (payload === undefined ? void claim() : claimAt(Number(payload))));
  void claim();
  return async () => {
    stopped = true;
    alarm.clear();
    while (claiming || running.size > 0) await Promise.race([...running, new Promise((resolve) => setTimeout(resolve, 10))]);
  };
}

/** Checks a claimed follow; `ended` is told when the check is over, whatever happened. */
function checkInBackground(deps: CheckDeps, follow: Follow, options: PollerOptions, ended: (check: Promise<void>) => void): Promise<void> {
  const check: Promise<void> = checkFollow(deps, follow, options.policy, new Date())
    .then(
      (outcome) => options.onChecked?.(follow, outcome),
      (error: Error) => options.onError(error, follow.id),
    )
    .finally(() => ended(check));
  return check;
}
