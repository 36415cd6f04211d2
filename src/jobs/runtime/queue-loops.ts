import type { ChangeFeed } from '../../shared/change-feed.js';
import type { JobFailureHooks, JobHandlers } from '../catalogue.js';
import type { JobSchedule, WorkerLimits } from '../job-definition.js';
import type { Jobs } from '../jobs.js';

/**
 * The job-runners loop of the catalogue: one runner per job, woken by JOB_NOTIFY_CHANNEL (a job
 * sent, retried or brought forward), its backstop a look at the job table. Its stop takes no
 * more jobs; those running go on until the queue stops.
 */
export function startJobRunnersLoop(
  context: { jobs: Pick<Jobs, 'work' | 'pause'>; handlers: JobHandlers; hooks: JobFailureHooks; timing: WorkerLimits },
  wake: { feed: ChangeFeed; everySeconds: number },
): () => void {
  context.jobs.work(context.handlers, context.hooks, { maxCaptures: context.timing.maxCaptures, wake: wake.feed, backstopSeconds: wake.everySeconds });
  return () => context.jobs.pause();
}

/** The job-clock loop of the catalogue: sends each scheduled job at its time, in every worker (the queue keeps one per period). */
export function startJobClockLoop(context: { jobs: Pick<Jobs, 'startClock'> }, wake: { schedules: readonly JobSchedule[] }): () => void {
  return context.jobs.startClock(wake.schedules);
}
