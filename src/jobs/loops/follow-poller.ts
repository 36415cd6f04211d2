// Decisions: docs/decisions/0029-jobs-woken-not-polled.md, docs/decisions/0082-follows-held-in-memory.md, docs/decisions/0085-an-idle-kura-writes-nothing.md
import { randomUUID } from 'node:crypto';
import type { CheckDeps, CheckPolicy } from '../../core/follows/check-follow.js';
import type { Follow } from '../../core/follows/follow.js';
import type { CheckOutcome } from '../../core/follows/ports.js';
import type { ChangeFeed } from '../../core/livestream/ports.js';
import type { BackgroundLog } from '../job-work.js';
import { HeldFollows } from './held-follows.js';
import { wakeWhenDue, type CancelWakeUp } from '../../core/wake-ups.js';

/** What the follow poller of a worker checks with, and how many follows at once. */
export interface FollowChecking {
  deps: CheckDeps;
  /** Follows checked at once by this worker (KURA_FOLLOW_CONCURRENCY). */
  concurrency: number;
  policy: CheckPolicy;
}

/** The follow-poller loop of the catalogue: told of changes by FOLLOW_NOTIFY_CHANNEL, claiming again when another worker's lease runs out, or at its backstop. */
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
  /** How long the follows a worker claimed are its without a renewal (renewed every third of it); then another worker takes them over. Default 300 s. */
  leaseSeconds?: number;
  /** The longest a check that changed nothing but times waits to be written (lastCheckedAt in the API). Default 60 s. */
  writeLooksSeconds?: number;
  /** The most follows one worker holds. Default 1,000. */
  maxHeld?: number;
  /** FOLLOW_NOTIFY_CHANNEL's notifications (migration 0028), from any process. */
  wake: ChangeFeed;
  /** The longest the worker waits between claims without a notification (KURA_JOB_POLL_SECONDS); it claims sooner when another worker's lease runs out. */
  backstopSeconds: number;
  /** Told of each check's outcome (the operator's log lines). */
  onChecked?: (follow: Follow, outcome: CheckOutcome) => void;
  /** A check, claim or write that failed. */
  onError: (error: Error, followId: string | null) => void;
}

/**
 * Claims follows no worker holds (many at once, for a lease renewed in one statement for all),
 * checks each when its time comes from this worker's memory, and writes only what a check changed
 * (decision 0082). Told by the notifications of follows added, changed or removed. The returned
 * stop function waits for running checks, writes what is unwritten and lets the follows go.
 */
export function startFollowPoller(deps: CheckDeps, options: PollerOptions): () => Promise<void> {
  const worker = randomUUID();
  const leaseSeconds = options.leaseSeconds ?? 300;
  const maxHeld = options.maxHeld ?? 1000;
  const held = new HeldFollows(deps, options);
  const repo = deps.follows;
  let claiming: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let cancelClaim: CancelWakeUp = () => undefined;
  const failed = (followId: string | null) => (error: unknown) => options.onError(error as Error, followId);

  /** The next claim without a notification: when another worker's first lease runs out (it may be gone), or at the backstop. */
  const claimIn = (ms: number) => {
    cancelClaim();
    cancelClaim = wakeWhenDue(ms, options.backstopSeconds * 1000, () => void claim());
  };
  const claimOnce = async () => {
    const now = new Date();
    const { follows, nextLeaseEnd } = await repo.claim(worker, now, leaseSeconds, maxHeld - held.size);
    for (const follow of follows) held.take(follow);
    upkeepWhileHolding();
    claimIn(nextLeaseEnd === null ? Infinity : nextLeaseEnd.getTime() - now.getTime());
  };
  /** Claims what is free; a claim asked for while one runs runs again after it (it may have missed what was asked). */
  const claim = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (claiming !== null) {
      again = true;
      return claiming;
    }
    claiming = (async () => {
      do {
        again = false;
        await claimOnce().catch((error: unknown) => {
          claimIn(Infinity);
          failed(null)(error);
        });
      } while (again && !stopped);
      claiming = null;
    })();
    return claiming;
  };

  /** A follow changed elsewhere: the one held is read again (let go when paused or removed); one not held may be free. */
  const changed = async (id: string) => {
    if (!held.has(id)) return claim();
    const row = await repo.find(id);
    if (row !== null && !row.paused) return held.update(row);
    held.drop(id);
    if (row !== null) await repo.release(worker, [id]);
  };

  const renew = async () => {
    if (held.size === 0) return;
    const ids = held.ids();
    const kept = new Set(await repo.renew(worker, ids, new Date(Date.now() + leaseSeconds * 1000)));
    for (const id of ids) if (!kept.has(id)) held.drop(id); // removed, or taken over after the lease ran out
  };

  const writeLooks = async () => {
    const looks = held.takeUnwritten();
    if (looks.length > 0) await repo.recordLooks(worker, looks);
  };

  options.wake.onChange((payload) => {
    if (stopped) return;
    // no payload: the notifications (re)connected or were lost, and anything may have changed meanwhile
    if (payload === undefined) void claim().then(() => Promise.all(held.ids().map((id) => changed(id).catch(failed(id)))));
    else if (payload === '*') void claim();
    else void changed(payload).catch(failed(payload));
  });
  /** The leases' renewal and the looks' write run while the worker holds a follow: with none, no timer wakes it. */
  let upkeep: NodeJS.Timeout[] = [];
  /** Starts the upkeep's timers while the worker holds a follow and stops them when it holds none (or stops); says whether it holds any. */
  function upkeepWhileHolding(): boolean {
    if (held.size > 0 && !stopped) {
      if (upkeep.length === 0) {
        upkeep = [
          setInterval(() => void (upkeepWhileHolding() && renew().catch(failed(null))), (leaseSeconds * 1000) / 3),
          setInterval(() => void (upkeepWhileHolding() && writeLooks().catch(failed(null))), (options.writeLooksSeconds ?? 60) * 1000),
        ];
        for (const timer of upkeep) timer.unref();
      }
      return true;
    }
    for (const timer of upkeep) clearInterval(timer);
    upkeep = [];
    return false;
  }
  void claim();

  return async () => {
    stopped = true;
    upkeepWhileHolding();
    await claiming;
    cancelClaim();
    await held.stop();
    await writeLooks().catch(failed(null));
    await repo.release(worker, null).catch(failed(null));
  };
}
