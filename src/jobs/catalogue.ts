// Decisions: docs/decisions/0022-final-failure-keeps-what-was-captured.md, docs/decisions/0030-kura-clock.md
import type { Static, TSchema } from 'typebox';
import type { QueuePolicy, QueueSpec } from '../core/job-queue.js';
import type { PendingJobs } from '../core/livestream/ports.js';
import { captureChatJob } from './definitions/capture-chat.js';
import { captureStreamJob } from './definitions/capture-stream.js';
import { deliverWebhooksJob } from './definitions/deliver-webhooks.js';
import { finalizeArchiveJob } from './definitions/finalize-archive.js';
import { indexRecordsJob } from './definitions/index-records.js';
import { sweepLifecycleJob } from './definitions/sweep-lifecycle.js';
import { verifyArchivesJob } from './definitions/verify-archives.js';
import { watchStreamJob } from './definitions/watch-stream.js';
import type { FinalFailure, JobDefinition, JobSchedule } from './job-definition.js';
import type { JobWork } from './job-work.js';
import { backstop, defineLoop, type Loop, type WakeUp } from './loop.js';
import { startFollowPollerLoop } from './loops/follow-poller.js';
import { startPruneWebhookHistoryLoop, startPurgeExpiredLoop } from './loops/purge-expired.js';
import { startJobClockLoop, startJobRunnersLoop } from './loops/queue-loops.js';
import { startSearchSyncLoop } from './loops/search-sync.js';
import { startWatchdogLoop } from './loops/watchdog.js';
import { startWebhookWakeUp } from './loops/webhook-wake-up.js';
import {
  FOLLOW_NOTIFY_CHANNEL,
  JOB_NOTIFY_CHANNEL,
  LEASE_NOTIFY_CHANNEL,
  RECORD_CHANGES_CHANNEL,
  WEBHOOK_EVENTS_CHANNEL,
  type NotifyChannel,
} from './notify-channels.js';
import type { LoopContext } from './worker-context.js';

/*
 * Everything Kura runs in the background, in one place: every job (JOBS, each one record in
 * definitions/) and every loop a worker runs (LOOPS), each loop with what wakes it. A worker
 * starts exactly these (background.ts) and listens to exactly the channels they name (on the
 * connections LISTEN_CONNECTIONS says).
 */

/** Every job Kura runs; a catalogue missing one fails to compile. */
export type JobName =
  'watch-stream' | 'capture-stream' | 'capture-chat' | 'finalize-archive' | 'index-records' | 'sweep-lifecycle' | 'verify-archives' | 'deliver-webhooks';

/** Each job's definition, by name (the order is the clock's, for jobs due at the same tick). */
export const JOBS = {
  'watch-stream': watchStreamJob,
  'capture-stream': captureStreamJob,
  'capture-chat': captureChatJob,
  'finalize-archive': finalizeArchiveJob,
  'index-records': indexRecordsJob,
  'sweep-lifecycle': sweepLifecycleJob,
  'verify-archives': verifyArchivesJob,
  'deliver-webhooks': deliverWebhooksJob,
} satisfies { [N in JobName]: JobDefinition<N, TSchema, JobWork> };

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

/** Every loop a worker runs, started in this order and stopped in the reverse (the job runners take no new job first). */
export const LOOPS = {
  'search-sync': defineLoop({
    purpose: 'drains the search outbox into the engine as records change; a failed drain asks for index-records',
    // the busiest channel (every record change, and every search document a drain writes), on a
    // connection of its own as before this catalogue (see the webhook wake-up)
    wakeUp: { channel: RECORD_CHANGES_CHANNEL, everySeconds: null, ownConnection: true },
    start: startSearchSyncLoop,
  }),
  'webhook-wake-up': defineLoop({
    purpose: 'asks for a deliver-webhooks drain at each new webhook event, and once at start',
    // on a connection of its own as before this catalogue: with it and the search sync on the worker's
    // shared one, the api came to show, just after a finalize, a finished record whose capture was not
    // finalized yet (test/e2e/database-outage.test.ts failed with them shared, and does not apart)
    wakeUp: { channel: WEBHOOK_EVENTS_CHANNEL, everySeconds: null, ownConnection: true },
    start: startWebhookWakeUp,
  }),
  'prune-webhook-history': defineLoop({
    purpose: 'deletes delivered and given-up webhook deliveries past their keeping time, and the events left without one',
    wakeUp: { channel: null, everySeconds: () => 3600 },
    start: startPruneWebhookHistoryLoop,
  }),
  'purge-expired': defineLoop({
    purpose: 'deletes expired sessions, login attempts and rate-limit windows',
    wakeUp: { channel: null, everySeconds: () => 3600 },
    start: startPurgeExpiredLoop,
  }),
  'capture-watchdog': defineLoop({
    purpose: 'asks again for captures and finalizes whose worker stopped renewing its lease',
    wakeUp: { channel: LEASE_NOTIFY_CHANNEL, everySeconds: backstop },
    start: startWatchdogLoop,
  }),
  'follow-poller': defineLoop({
    purpose: 'claims the follows due and checks them, sleeping until the next is due',
    wakeUp: { channel: FOLLOW_NOTIFY_CHANNEL, everySeconds: backstop },
    start: startFollowPollerLoop,
  }),
  'job-clock': defineLoop({
    purpose: 'sends the scheduled jobs at their times',
    wakeUp: { channel: null, everySeconds: null, schedules: JOB_SCHEDULES },
    start: startJobClockLoop,
  }),
  'job-runners': defineLoop({
    purpose: 'runs the jobs of JOBS, each queue up to its concurrency, fetching when one may be ready',
    wakeUp: { channel: JOB_NOTIFY_CHANNEL, everySeconds: backstop },
    start: startJobRunnersLoop,
  }),
} satisfies Record<string, Loop<LoopContext>>;

/** Every loop of the catalogue, by name. */
export type LoopName = keyof typeof LOOPS;

/** The channels a worker listens to: those its loops name. */
export const LOOP_CHANNELS = [...new Set(Object.values(LOOPS).flatMap((loop) => (loop.wakeUp.channel === null ? [] : [loop.wakeUp.channel])))];

/** The LISTEN connections a worker opens, each with its channels: one shared by the loops' channels, and one for each loop that asks for its own. */
export const LISTEN_CONNECTIONS: ReadonlyArray<readonly NotifyChannel[]> = (() => {
  const wakeUps: WakeUp[] = Object.values(LOOPS).map((loop) => loop.wakeUp);
  const own = wakeUps.flatMap((w) => (w.channel !== null && w.ownConnection === true ? [w.channel] : []));
  const shared = LOOP_CHANNELS.filter((channel) => !own.includes(channel));
  return [shared, ...own.map((channel) => [channel])];
})();
