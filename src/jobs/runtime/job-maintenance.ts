// Decisions: docs/decisions/0101-an-idle-kura-writes-nothing.md
import type { Jobs } from '../jobs.js';
import type { BackgroundLog } from '../job-work.js';
import { startEvery } from './every.js';

/** A worker runs the queue's upkeep this often (seconds): pg-boss's own interval, so a dead worker's expired job is retried as soon as before. */
export const JOB_MAINTENANCE_SECONDS = 120;

/**
 * The job-maintenance loop of the catalogue: the queue's upkeep (Jobs.maintain) at start and on its
 * timer, in each worker (pg-boss locks each step, so workers take turns). pg-boss's own timer noted
 * the time of each run in a row, a write every two minutes that kept an idle cluster writing WAL
 * and checkpointing; this one writes only what it changes. One run at a time, and the stop waits
 * for it (startEvery), so the queue is not closed under it.
 */
export function startJobMaintenanceLoop(context: { jobs: Pick<Jobs, 'maintain'>; log: BackgroundLog }, wake: { everySeconds: number }): () => Promise<void> {
  return startEvery(() => context.jobs.maintain(), {
    everySeconds: wake.everySeconds,
    onError: (error) => context.log.warn({ err: error }, 'the job queue’s maintenance failed; the next run tries again'),
  });
}
