import type PgBoss from 'pg-boss';

/** Every job Kura runs; a handler map missing one fails to compile. */
export type JobName = 'watch-stream' | 'capture-stream' | 'finalize-archive' | 'index-records' | 'verify-archives';
export interface JobPayload {
  livestreamId: string;
}
/** What each job is given: a record, or nothing (`index-records` drains the search outbox). */
export interface JobPayloads {
  'watch-stream': JobPayload;
  'capture-stream': JobPayload;
  'finalize-archive': JobPayload;
  'index-records': Record<string, never>;
  'verify-archives': Record<string, never>;
}
export type JobHandlers = { [N in JobName]: (payload: JobPayloads[N], job: { id: string }) => Promise<void> };

/**
 * Retry and time limits per job. A thrown error means "retry"; captures retry for as long as
 * the stream may still be live (their progress is in PostgreSQL, so a retry resumes).
 */
export const JOB_POLICIES: Record<JobName, PgBoss.Queue> = {
  'watch-stream': { name: 'watch-stream', retryLimit: 20, retryDelay: 15, retryBackoff: true, expireInSeconds: 300 },
  'capture-stream': { name: 'capture-stream', retryLimit: 500, retryDelay: 5, expireInSeconds: 23 * 3600 },
  'finalize-archive': { name: 'finalize-archive', retryLimit: 20, retryDelay: 30, retryBackoff: true, expireInSeconds: 6 * 3600 },
  // the durable path of search sync: retried while the engine is down; changes wait in the outbox
  'index-records': { name: 'index-records', retryLimit: 1000, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600 },
  // a run that fails (the database away) is not retried: the next hour's run does its work
  'verify-archives': { name: 'verify-archives', retryLimit: 0, expireInSeconds: 3 * 3600 },
};

/** Jobs pg-boss sends on a cron schedule (UTC), from the worker processes. */
export const JOB_SCHEDULES: ReadonlyArray<{ name: JobName; cron: string }> = [
  // hourly: KURA_VERIFY_GB_PER_HOUR is each run's budget
  { name: 'verify-archives', cron: '23 * * * *' },
];

export const JOB_NAMES = Object.keys(JOB_POLICIES) as JobName[];
