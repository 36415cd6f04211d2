import type { Logger } from 'pino';
import type pg from 'pg';
import { startPgBossQueue } from '../jobs/runtime/pg-boss-queue.js';
import type { QueuePolicy } from '../jobs/runtime/job-queue.js';
import { RETIRED_JOBS, queueSpecs, type JobName } from '../jobs/catalogue.js';
import { Jobs } from '../jobs/jobs.js';
import { JOB_NOTIFY_CHANNEL } from '../jobs/runtime/notify-channels.js';
import { DATABASE_LOG_EVERY_MS, type Database } from './database.js';
import { throttled } from '../shared/log-throttle.js';

/** Where the job queue lives, who hears its errors, and (tests) its policies. */
export interface JobsOptions {
  /** The process's pool, which the queue runs on. */
  pool: pg.Pool;
  onError: (error: Error) => void;
  /** A worker's start: forget the schedules pg-boss's own clock kept (Kura up to 0.6); the catalogue's job-clock loop keeps the time now. */
  forgetCronSchedules?: boolean;
  /** A CLI command's: only sends, with no setup when the queues are in place (see startPgBossQueue). */
  sendOnly?: boolean;
  /** Overrides of the jobs' policies (tests: fewer, quicker retries). */
  policies?: Partial<Record<JobName, Partial<QueuePolicy>>>;
}

/** Kura's jobs on pg-boss: the queue adapter with every queue of the catalogue, and the Jobs on it. */
export async function startJobs(options: JobsOptions): Promise<Jobs> {
  const queue = await startPgBossQueue({
    pool: options.pool,
    queues: queueSpecs(options.policies),
    notifyChannel: JOB_NOTIFY_CHANNEL,
    forgetCronSchedules: options.forgetCronSchedules ?? false,
    retiredQueues: RETIRED_JOBS,
    sendOnly: options.sendOnly ?? false,
    onError: options.onError,
  });
  return new Jobs(queue, options.onError);
}

/**
 * Starts the job queue for scheduling (CLI commands, api processes, workers); `worker`: forget
 * pg-boss's own schedules, as workers keep the time; `command`: a CLI command's, which only sends.
 */
export function startScheduler(database: Database, log: Logger, options: { worker?: boolean; command?: boolean } = {}): Promise<Jobs> {
  return startJobs({
    pool: database.pool,
    forgetCronSchedules: options.worker ?? false,
    sendOnly: options.command ?? false,
    onError: throttled(DATABASE_LOG_EVERY_MS, (suppressed, error: Error) => log.error({ err: error, suppressed }, 'job queue error')),
  });
}
