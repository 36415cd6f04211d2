// Decisions: docs/decisions/0029-jobs-woken-not-polled.md, docs/decisions/0101-an-idle-kura-writes-nothing.md, docs/decisions/0111-follows-shared-evenly.md
import { randomUUID } from 'node:crypto';
import type { CheckDeps, CheckPolicy } from '../../core/follows/check-follow.js';
import type { Follow } from '../../core/follows/follow.js';
import type { CheckOutcome, FollowRepo, HostPacer } from '../../core/follows/ports.js';
import type { ChangeFeed } from '../../shared/change-feed.js';
import type { BackgroundLog } from '../job-work.js';
import { HeldFollows } from './held-follows.js';
import { wakeWhenDue, type CancelWakeUp } from '../../shared/wake-ups.js';
import type { WorkerActivity } from '../../shared/worker-activity.js';

/** What the follow poller of a worker checks with, and how many follows at once. */
export interface FollowChecking {
  deps: CheckDeps;
  /** Follows checked at once by this worker (KURA_FOLLOW_CONCURRENCY). */
  concurrency: number;
  policy: CheckPolicy;
}

/** The follow-poller loop of the catalogue: told of changes by FOLLOW_NOTIFY_CHANNEL, claiming again when another worker's lease runs out, or at its backstop. */
export function startFollowPollerLoop(
  context: { follows: FollowChecking; log: BackgroundLog; activity?: WorkerActivity },
  wake: { feed: ChangeFeed; everySeconds: number },
): () => Promise<void> {
  const { deps, concurrency, policy } = context.follows;
  return startFollowPoller(deps, {
    concurrency,
    policy,
    wake: wake.feed,
    backstopSeconds: wake.everySeconds,
    ...(context.activity === undefined ? {} : { activity: context.activity }),
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
  /** The most follows one worker holds (tests); default: its even share, whatever that is. */
  maxHeld?: number;
  /** FOLLOW_NOTIFY_CHANNEL's notifications (migration 0028), from any process. */
  wake: ChangeFeed;
  /** The longest the worker waits between claims without a notification (KURA_JOB_POLL_SECONDS); it claims sooner when another worker's lease runs out. */
  backstopSeconds: number;
  /** Told of each check's outcome (the operator's log lines). */
  onChecked?: (follow: Follow, outcome: CheckOutcome) => void;
  /** A check, claim or write that failed. */
  onError: (error: Error, followId: string | null) => void;
  /** Told where the count of follows this worker holds is read (its /metrics). */
  activity?: Pick<WorkerActivity, 'measure'>;
}

/**
 * Claims follows no worker holds (many at once, for a lease renewed in one statement for all),
 * checks each when its time comes from this worker's memory, and writes only what a check changed
 * (decision 0082). Told by the notifications of follows added, changed or removed. The returned
 * stop function waits for running checks, writes what is unwritten and lets the follows go.
 */
export function startFollowPoller(deps: CheckDeps, options: PollerOptions): () => Promise<void> {
  const poller = new FollowPoller(deps, options);
  return () => poller.stop();
}

/** One worker's follow poller: what it holds (HeldFollows checks them), its claims, leases and batched writes. */
class FollowPoller {
  private readonly worker = randomUUID();
  private readonly leaseSeconds: number;
  private readonly maxHeld: number;
  private readonly held: HeldFollows;
  private readonly repo: FollowRepo;
  private readonly pacer: HostPacer;
  private claiming: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private cancelClaim: CancelWakeUp = () => undefined;
  /** The leases' renewal and the looks' write run while the worker holds a follow: with none, no timer wakes it. */
  private upkeep: NodeJS.Timeout[] = [];

  constructor(
    deps: CheckDeps,
    private readonly options: PollerOptions,
  ) {
    this.leaseSeconds = options.leaseSeconds ?? 300;
    this.maxHeld = options.maxHeld ?? Infinity;
    this.held = new HeldFollows(deps, options);
    this.repo = deps.follows;
    this.pacer = deps.pacer;
    options.wake.onChange((payload) => this.told(payload));
    options.activity?.measure('followsHeld', () => this.held.size);
    void this.claim();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.upkeepWhileHolding();
    await this.claiming;
    this.cancelClaim();
    await this.held.stop();
    await this.writeLooks().catch(this.failed(null));
    await this.repo.release(this.worker, null).catch(this.failed(null));
  }

  private failed(followId: string | null) {
    return (error: unknown) => this.options.onError(error as Error, followId);
  }

  /** A notification: no payload, the notifications (re)connected or were lost, and anything may have changed meanwhile. */
  private told(payload: string | undefined): void {
    if (this.stopped) return;
    if (payload === undefined) void this.claim().then(() => Promise.all(this.held.ids().map((id) => this.changed(id).catch(this.failed(id)))));
    else if (payload === '*') void this.claim();
    else void this.changed(payload).catch(this.failed(payload));
  }

  /** The next claim without a notification: when another worker's first lease runs out (it may be gone), or at the backstop. */
  private claimIn(ms: number): void {
    this.cancelClaim();
    this.cancelClaim = wakeWhenDue(ms, this.options.backstopSeconds * 1000, () => void this.claim());
  }

  private async claimOnce(): Promise<void> {
    const now = new Date();
    const share = await this.fairShare();
    const { follows, nextLeaseEnd } = await this.repo.claim(this.worker, now, this.leaseSeconds, share - this.held.size);
    for (const follow of follows) this.held.take(follow);
    this.upkeepWhileHolding();
    this.claimIn(nextLeaseEnd === null ? Infinity : nextLeaseEnd.getTime() - now.getTime());
  }

  /** Claims what is free; a claim asked for while one runs runs again after it (it may have missed what was asked). */
  private claim(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.claiming !== null) {
      this.again = true;
      return this.claiming;
    }
    this.claiming = (async () => {
      do {
        this.again = false;
        await this.claimOnce().catch((error: unknown) => {
          this.claimIn(Infinity);
          this.failed(null)(error);
        });
      } while (this.again && !this.stopped);
      this.claiming = null;
    })();
    return this.claiming;
  }

  /** A follow changed elsewhere: the one held is read again (let go when paused or removed); one not held may be free. */
  private async changed(id: string): Promise<void> {
    if (!this.held.has(id)) return this.claim();
    const row = await this.repo.find(id);
    if (row !== null && !row.paused) return this.held.update(row);
    this.held.drop(id);
    if (row !== null) await this.repo.release(this.worker, [id]);
  }

  /**
   * This worker's even share of the follows (at most maxHeld, unset in production): the unpaused follows over the workers
   * alive, rounded up. The hosts' request rate is shared the same way: each worker sends its part.
   */
  private async fairShare(): Promise<number> {
    const { workers, follows } = await this.repo.sharing();
    this.pacer.shareWith(workers);
    return Math.min(this.maxHeld, Math.ceil(follows / workers));
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const ids = this.held.ids();
    const kept = new Set(await this.repo.renew(this.worker, ids, new Date(Date.now() + this.leaseSeconds * 1000)));
    for (const id of ids) if (!kept.has(id)) this.held.drop(id); // removed, or taken over after the lease ran out
    await this.shedPastShare();
  }

  /**
   * Lets go of the follows past this worker's share (a worker joined, or follows were removed): their
   * times written first, those due last let go, so the workers under their share claim them at once
   * (a release notifies every poller).
   */
  private async shedPastShare(): Promise<void> {
    const excess = this.held.size - (await this.fairShare());
    if (excess <= 0) return;
    await this.writeLooks();
    const shed = this.held.dueLast(excess);
    for (const id of shed) this.held.drop(id);
    await this.repo.release(this.worker, shed);
  }

  private async writeLooks(): Promise<void> {
    const looks = this.held.takeUnwritten();
    if (looks.length > 0) await this.repo.recordLooks(this.worker, looks);
  }

  /** Starts the upkeep's timers while the worker holds a follow and stops them when it holds none (or stops); says whether it holds any. */
  private upkeepWhileHolding(): boolean {
    if (this.held.size > 0 && !this.stopped) {
      if (this.upkeep.length === 0) {
        this.upkeep = [
          setInterval(() => void (this.upkeepWhileHolding() && this.renew().catch(this.failed(null))), (this.leaseSeconds * 1000) / 3),
          setInterval(() => void (this.upkeepWhileHolding() && this.writeLooks().catch(this.failed(null))), (this.options.writeLooksSeconds ?? 60) * 1000),
        ];
        for (const timer of this.upkeep) timer.unref();
      }
      return true;
    }
    for (const timer of this.upkeep) clearInterval(timer);
    this.upkeep = [];
    return false;
  }
}
