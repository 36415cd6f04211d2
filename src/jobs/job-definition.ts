import type { Static, TSchema } from 'typebox';
import { PermanentError } from '../core/errors.js';
import type { JobState, QueuePolicy } from './runtime/job-queue.js';
import type { PendingJobs } from '../core/scheduler.js';
import type { JobWork } from './job-work.js';

/** How a job ended for good: a PermanentError, or the last allowed attempt failing. */
export interface FinalFailure {
  /** The error's words (a PermanentError's reason). */
  message: string;
  error: unknown;
  permanent: boolean;
  /** Attempts made, this one included. */
  attempts: number;
}

/**
 * Whether a failed attempt is the job's last: a PermanentError ends it at once; any other error
 * ends it when the queue allows no more retries (`retryCount` counts the retries made before this
 * attempt). Null: it will be retried.
 */
export function finalFailure(error: unknown, attempt: { retryCount: number; retryLimit: number }): FinalFailure | null {
  const permanent = error instanceof PermanentError;
  if (!permanent && attempt.retryCount < attempt.retryLimit) return null;
  const message = permanent ? error.reason : error instanceof Error ? error.message : String(error);
  return { message, error, permanent, attempts: attempt.retryCount + 1 };
}

/** What a worker process allows at once, which some jobs' concurrency follows. */
export interface WorkerLimits {
  /** Captures one worker process runs at once (KURA_MAX_CAPTURES). */
  maxCaptures: number;
}

/**
 * Which sends of a job are the same work: the key a payload gives, and either one waiting job per
 * key (a second send brings the waiting one forward) or one job per key per window of seconds.
 */
export type Dedup<P> = { key(payload: P): string } & ({ oneWaiting: true } | { windowSeconds: number });

/** A job sent on Kura's clock: once every `everySeconds` across the workers, `atSecond` into each period (counted from the Unix epoch, so UTC). */
export interface JobSchedule {
  name: string;
  everySeconds: number;
  /** Well inside the period, away from its ends: the workers' sends of one tick must fall in the same period by the database's clock too. */
  atSecond: number;
}

/**
 * Everything about one job, in one place: its payload's schema (checked when the job is taken),
 * the queue's policy, how many run at once in a worker, which sends are duplicates, which states
 * count as pending for the lifecycle sweep, its clock, what it does and what it does when it
 * fails for good. `W` is the slice of the worker's parts the job uses.
 */
export interface JobDefinition<N extends string = string, S extends TSchema = TSchema, W = JobWork> {
  readonly name: N;
  readonly payload: S;
  /** Retries, their delay, and expiry. A thrown error means "retry"; a PermanentError, "fail now". */
  readonly policy: QueuePolicy;
  /** Jobs of this queue one worker process runs at once. */
  concurrency(limits: WorkerLimits): number;
  /** How sends are deduplicated; null: sent only by the clock (`schedule`), one per period. */
  readonly dedup: Dedup<Static<S>> | null;
  /** For the lifecycle sweep (PendingJobs): the kind it asks about and the states that count as pending. */
  readonly pending?: { kind: Parameters<PendingJobs['pending']>[0]; states: readonly JobState[] };
  /** When the clock sends it (only workers run the clock). */
  readonly schedule?: Omit<JobSchedule, 'name'>;
  handle(work: W, payload: Static<S>, job: { id: string }): Promise<void>;
  /** Runs when the job fails for good, before the job ends; if it throws, the job is retried and it runs again. */
  onFailure(work: W, payload: Static<S>, failure: FinalFailure): Promise<void>;
}

/** A job's definition with its types inferred (its name a literal, its payload its schema's). */
export function defineJob<const N extends string, S extends TSchema, W>(definition: JobDefinition<N, S, W>): JobDefinition<N, S, W> {
  return definition;
}
