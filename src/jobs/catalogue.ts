// Decisions: docs/decisions/0022-final-failure-keeps-what-was-captured.md, docs/decisions/0030-kura-clock.md
import type { Static, TSchema } from 'typebox';
import type { QueuePolicy, QueueSpec } from './runtime/job-queue.js';
import type { PendingJobs } from '../core/scheduler.js';
import { applyRetentionJob } from './definitions/apply-retention.js';
import { captureChatJob } from './definitions/capture-chat.js';
import { captureStreamJob } from './definitions/capture-stream.js';
import { deliverWebhooksJob } from './definitions/deliver-webhooks.js';
import { finalizeArchiveJob } from './definitions/finalize-archive.js';
import { indexRecordsJob } from './definitions/index-records.js';
import { verifyArchivesJob } from './definitions/verify-archives.js';
import { watchStreamJob } from './definitions/watch-stream.js';
import type { FinalFailure, JobDefinition, JobSchedule } from './job-definition.js';
import type { JobWork } from './job-work.js';

/*
 * Everything Kura runs in the background is listed in two places of this folder: every job here
 * (JOBS, each one record in definitions/), and every loop a worker runs in loop-catalogue.ts
 * (LOOPS, each with what wakes it; the job runners and the clock that run JOBS are two of them).
 */

/** Every job Kura runs; a catalogue missing one fails to compile. */
export type JobName =
  'watch-stream' | 'capture-stream' | 'capture-chat' | 'finalize-archive' | 'index-records' | 'verify-archives' | 'deliver-webhooks' | 'apply-retention';

/** Each job's definition, by name (the order is the clock's, for jobs due at the same tick). */
export const JOBS = {
  'watch-stream': watchStreamJob,
  'capture-stream': captureStreamJob,
  'capture-chat': captureChatJob,
  'finalize-archive': finalizeArchiveJob,
  'index-records': indexRecordsJob,
  'verify-archives': verifyArchivesJob,
  'deliver-webhooks': deliverWebhooksJob,
  'apply-retention': applyRetentionJob,
} satisfies { [N in JobName]: JobDefinition<N, TSchema, JobWork> };

/** Jobs of earlier releases: their queues are deleted at a worker's start ('sweep-lifecycle': the sweep is a loop since 0.7). */
export const RETIRED_JOBS: readonly string[] = ['sweep-lifecycle'];

/** Every job's name, in the catalogue's order. */
export const JOB_NAMES = Object.keys(JOBS) as JobName[];

/** What each job is given, as its schema reads it. */
export type JobPayloads = { [N in JobName]: Static<(typeof JOBS)[N]['payload']> };
/** A worker's handler of each job; a map missing one fails to compile. */
export type JobHandlers = { [N in JobName]: (payload: JobPayloads[N], job: { id: string }) => Promise<void> };
/** What each job does when it fails for good (the record says why); a map missing one fails to compile. */
export type JobFailureHooks = { [N in JobName]: (payload: JobPayloads[N], failure: FinalFailure) => Promise<void> };

/** Jobs sent on Kura's clock (job-clock.ts), once per tick across every worker; only workers run the clock. */
export const JOB_SCHEDULES: readonly JobSchedule[] = JOB_NAMES.flatMap((name) => {
  const { schedule } = JOBS[name] as JobDefinition;
  return schedule === undefined ? [] : [{ name, ...schedule }];
});

/** Every queue with its policy (`overrides`: tests' fewer, quicker retries). */
export function queueSpecs(overrides: Partial<Record<JobName, Partial<QueuePolicy>>> = {}): QueueSpec[] {
  return JOB_NAMES.map((name) => {
    const { policy, dedup } = JOBS[name] as JobDefinition;
    return { name, ...policy, ...overrides[name], oneWaitingPerKey: dedup !== null && 'oneWaiting' in dedup };
  });
}

/** The job the lifecycle sweep means by `kind`, and the states that count as pending. */
export function pendingJob(kind: Parameters<PendingJobs['pending']>[0]): { name: JobName; states: NonNullable<JobDefinition['pending']>['states'] } {
  for (const name of JOB_NAMES) {
    const { pending } = JOBS[name] as JobDefinition;
    if (pending?.kind === kind) return { name, states: pending.states };
  }
  throw new Error(`no job is pending as ${kind}`);
}
