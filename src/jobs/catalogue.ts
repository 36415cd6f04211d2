import type PgBoss from 'pg-boss';

/** Every job Kura runs; a handler map missing one fails to compile. */
export type JobName = 'watch-stream' | 'capture-stream' | 'finalize-archive';
export interface JobPayload {
  livestreamId: string;
}
export type JobHandlers = Record<JobName, (payload: JobPayload, job: { id: string }) => Promise<void>>;

/**
 * Retry and time limits per job. A thrown error means "retry"; captures retry for as long as
 * the stream may still be live (their progress is in PostgreSQL, so a retry resumes).
 */
export const JOB_POLICIES: Record<JobName, PgBoss.Queue> = {
  'watch-stream': { name: 'watch-stream', retryLimit: 20, retryDelay: 15, retryBackoff: true, expireInSeconds: 300 },
  'capture-stream': { name: 'capture-stream', retryLimit: 500, retryDelay: 5, expireInSeconds: 23 * 3600 },
  'finalize-archive': { name: 'finalize-archive', retryLimit: 20, retryDelay: 30, retryBackoff: true, expireInSeconds: 6 * 3600 },
};

export const JOB_NAMES = Object.keys(JOB_POLICIES) as JobName[];
