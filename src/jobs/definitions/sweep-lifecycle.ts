import { completePendingTakedowns } from '../../core/workflow/complete-takedown.js';
import { sweepLifecycle, type SweepPolicy } from '../../core/workflow/sweep-lifecycle.js';
import { defineJob } from '../job-definition.js';
import type { JobWork, WorkerSettings } from '../job-work.js';
import { NoPayload } from '../payloads.js';

type Work = Pick<JobWork, 'deps' | 'settings' | 'log'>;

/** Records looked at per sweep, per kind of repair. */
const SWEEP_BATCH = 5000;

/** What a sweep repairs: a live record's lease twice as old as the watchdog allows (the watchdog had its turn). */
export function sweepPolicy(settings: WorkerSettings): SweepPolicy {
  return { neverLiveSeconds: settings.watch.neverLiveSeconds, leaseSeconds: 2 * settings.staleAfterSeconds, batch: SWEEP_BATCH };
}

/**
 * Completes the takedowns nothing else completed, then repairs records with nothing behind their
 * state (no job, no live lease), and fails those never live past their deadline.
 */
export const sweepLifecycleJob = defineJob({
  name: 'sweep-lifecycle',
  payload: NoPayload,
  // on a clock: a failed sweep is simply run again at the next tick
  policy: { retryLimit: 0, expireInSeconds: 300 },
  concurrency: () => 1,
  dedup: null,
  schedule: { everySeconds: 60, atSecond: 30 },
  async handle(work: Work) {
    const { workerId, staleAfterSeconds } = work.settings;
    // first: a live record being taken down must not have its capture queued again by the repairs
    const takenDown = await completePendingTakedowns(
      work.deps,
      { olderThanSeconds: 2 * staleAfterSeconds, batch: SWEEP_BATCH, workerId, staleAfterSeconds },
      (id, error) => work.log?.warn({ id, err: error }, 'a pending takedown could not be completed; the next sweep tries again'),
    );
    if (takenDown.length > 0) work.log?.warn({ takenDown }, 'lifecycle sweep completed pending takedowns');
    const repairs = await sweepLifecycle(work.deps, sweepPolicy(work.settings), new Date());
    if (repairs.length > 0) work.log?.warn({ repairs }, 'lifecycle sweep repaired records');
  },
  // it runs again at the next tick
  onFailure: async () => undefined,
});
