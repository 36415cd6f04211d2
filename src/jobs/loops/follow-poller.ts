// Decisions: docs/decisions/0029-jobs-woken-not-polled.md, docs/decisions/0082-follows-held-in-memory.md
import { randomUUID } from 'node:crypto';
import type { CheckDeps, CheckPolicy } from '../../core/follows/check-follow.js';
import type { Follow } from '../../core/follows/follow.js';
import type { CheckOutcome } from '../../core/follows/ports.js';
import type { ChangeFeed } from '../../core/livestream/ports.js';
import type { BackgroundLog } from '../job-work.js';
import { HeldFollows } from './held-follows.js';

/** What the follow poller of a worker checks with, and how many follows at once. */
export interface FollowChecking {
  deps: CheckDeps;
  /** Follows checked at once by this worker (KURA_FOLLOW_CONCURRENCY). */
  concurrency: number;
  policy: CheckPolicy;
}

/** The follow-poller loop of the catalogue: told of changes by FOLLOW_NOTIFY_CHANNEL, claiming again at its backstop. */
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
  /** How often the worker claims follows without a notification (another worker's lease ran out) (KURA_JOB_POLL_SECONDS). */
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
  const failed = (followId: string | null) => (error: unknown) => options.onError(error as Error, followId);

  const claimOnce = async () => {
    const claimed = await repo.claim(worker, new Date(), leaseSeconds, maxHeld - held.size);
    for (const follow of claimed) held.take(follow);
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
        await claimOnce().catch(failed(null));
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
  const timers = [
    setInterval(() => void claim(), options.backstopSeconds * 1000),
    setInterval(() => void renew().catch(failed(null)), (leaseSeconds * 1000) / 3),
    setInterval(() => void writeLooks().catch(failed(null)), (options.writeLooksSeconds ?? 60) * 1000),
  ];
  for (const timer of timers) timer.unref();
  void claim();

  return async () => {
    stopped = true;
    for (const timer of timers) clearInterval(timer);
    await claiming;
    await held.stop();
    await writeLooks().catch(failed(null));
    await repo.release(worker, null).catch(failed(null));
  };
}
