import { checkFollow, type CheckDeps, type CheckPolicy } from '../core/follows/check-follow.js';

export interface PollerOptions {
  /** Follows checked at once by this worker (KURA_FOLLOW_CONCURRENCY). */
  concurrency: number;
  policy: CheckPolicy;
  /** How long a claimed follow is this worker's before another may take it (a crashed worker's claim runs out). Default 300 s. */
  leaseSeconds?: number;
  /** Between two claims. Default 1000 ms. */
  everyMs?: number;
  /** A check or claim that failed (the follow is due again when its lease runs out). */
  onError: (error: Error, followId: string | null) => void;
}

/**
 * Every second, claims the follows due (as many as there are free slots; several workers never
 * claim one follow at once) and checks each. The returned stop function waits for running checks.
 */
export function startFollowPoller(deps: CheckDeps, options: PollerOptions): () => Promise<void> {
  const running = new Set<Promise<void>>();
  let claiming = false;
  let stopped = false;
  const claim = async () => {
    const free = options.concurrency - running.size;
    if (claiming || stopped || free <= 0) return;
    claiming = true;
    try {
      for (const follow of await deps.follows.claimDue(new Date(), options.leaseSeconds ?? 300, free)) {
        const check: Promise<void> = checkFollow(deps, follow, options.policy, new Date())
          .then(() => undefined)
          .catch((error: Error) => options.onError(error, follow.id))
          .finally(() => running.delete(check));
        running.add(check);
      }
    } catch (error) {
      options.onError(error as Error, null);
    } finally {
      claiming = false;
    }
  };
  const timer = setInterval(() => void claim(), options.everyMs ?? 1000);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    while (claiming || running.size > 0) await Promise.race([...running, new Promise((resolve) => setTimeout(resolve, 10))]);
  };
}
