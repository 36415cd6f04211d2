import type PgBoss from 'pg-boss';
import { PermanentError } from '../core/errors.js';

/** Every job Kura runs; a handler map missing one fails to compile. */
export type JobName =
  'watch-stream' | 'capture-stream' | 'capture-chat' | 'finalize-archive' | 'index-records' | 'sweep-lifecycle' | 'verify-archives' | 'deliver-webhooks';
export interface JobPayload {
  livestreamId: string;
}
/** What each job is given: a record, or nothing (`index-records` drains the search outbox). */
export interface JobPayloads {
  'watch-stream': JobPayload;
  'capture-stream': JobPayload;
  'capture-chat': JobPayload;
  'finalize-archive': JobPayload;
  'index-records': Record<string, never>;
  'sweep-lifecycle': Record<string, never>;
  'verify-archives': Record<string, never>;
  'deliver-webhooks': Record<string, never>;
}
export type JobHandlers = { [N in JobName]: (payload: JobPayloads[N], job: { id: string }) => Promise<void> };

/** How a job ended for good: a PermanentError, or the last allowed attempt failing. */
export interface FinalFailure {
  /** The error's words (a PermanentError's reason). */
  message: string;
  error: unknown;
  permanent: boolean;
  /** Attempts made, this one included. */
  attempts: number;
}

/** What each job does when it fails for good (the record says why); a map missing one fails to compile. */
export type JobFailureHooks = { [N in JobName]: (payload: JobPayloads[N], failure: FinalFailure) => Promise<void> };

/**
 * Whether a failed attempt is the job's last: a PermanentError ends it at once; any other error
 * ends it when pg-boss allows no more retries (`retryCount` counts the retries made before this
 * attempt). Null: it will be retried.
 */
export function finalFailure(error: unknown, attempt: { retryCount: number; retryLimit: number }): FinalFailure | null {
  const permanent = error instanceof PermanentError;
  if (!permanent && attempt.retryCount < attempt.retryLimit) return null;
  const message = permanent ? error.reason : error instanceof Error ? error.message : String(error);
  return { message, error, permanent, attempts: attempt.retryCount + 1 };
}

/**
 * Retry and time limits per job. A thrown error means "retry"; captures retry for as long as
 * the stream may still be live (their progress is in PostgreSQL, so a retry resumes).
 */
export const JOB_POLICIES: Record<JobName, PgBoss.Queue> = {
  // 'short': at most one waiting (created) look per record (its singleton key); one running or
  // retrying does not count, so a look can always queue the next (see PgBossJobs.watch)
  'watch-stream': { name: 'watch-stream', policy: 'short', retryLimit: 20, retryDelay: 15, retryBackoff: true, expireInSeconds: 300 },
  'capture-stream': { name: 'capture-stream', retryLimit: 500, retryDelay: 5, expireInSeconds: 23 * 3600 },
  // a chat's attempt ends with the stream; a failed one resumes (its messages are stored), and giving up fails only the chat
  'capture-chat': { name: 'capture-chat', retryLimit: 30, retryDelay: 10, retryBackoff: true, expireInSeconds: 23 * 3600 },
  'finalize-archive': { name: 'finalize-archive', retryLimit: 20, retryDelay: 30, retryBackoff: true, expireInSeconds: 6 * 3600 },
  // the durable path of search sync: retried while the engine is down; changes wait in the outbox
  'index-records': { name: 'index-records', retryLimit: 1000, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600 },
  // on a clock: a failed sweep is simply run again at the next tick
  'sweep-lifecycle': { name: 'sweep-lifecycle', retryLimit: 0, expireInSeconds: 300 },
  // a run that fails (the database away) is not retried: the next hour's run does its work
  'verify-archives': { name: 'verify-archives', retryLimit: 0, expireInSeconds: 3 * 3600 },
  // drains due webhook deliveries (their retries are the deliveries' own, in webhook_deliveries);
  // one waits at a time, sent for when the next delivery is due; a failed drain waits for the clock
  'deliver-webhooks': { name: 'deliver-webhooks', policy: 'short', retryLimit: 0, expireInSeconds: 900 },
};

/** A job sent on a clock: once every `everySeconds` across the workers, `atSecond` into each period (counted from the Unix epoch, so UTC). */
export interface JobSchedule {
  name: JobName;
  everySeconds: number;
  /** Well inside the period, away from its ends: the workers' sends of one tick must fall in the same period by the database's clock too. */
  atSecond: number;
}

/** Jobs sent on Kura's clock (job-clock.ts), once per tick across every worker; only workers run the clock. */
export const JOB_SCHEDULES: readonly JobSchedule[] = [
  { name: 'sweep-lifecycle', everySeconds: 60, atSecond: 30 },
  // hourly, at :23: KURA_VERIFY_GB_PER_HOUR is each run's budget
  { name: 'verify-archives', everySeconds: 3600, atSecond: 23 * 60 },
  // a backstop: deliveries are woken by their events at once and by their own retry times
  { name: 'deliver-webhooks', everySeconds: 60, atSecond: 30 },
];

export const JOB_NAMES = Object.keys(JOB_POLICIES) as JobName[];
