import type { JobQueue, SendOptions } from './runtime/job-queue.js';
import type { PendingJobs, Scheduler } from '../core/scheduler.js';
import { JOB_NAMES, JOBS, pendingJob, type JobFailureHooks, type JobHandlers, type JobName, type JobPayloads } from './catalogue.js';
import type { JobDefinition, JobSchedule } from './job-definition.js';
import { startJobClock } from './runtime/job-clock.js';
import { startJobRunners, type JobRunners, type WorkOptions } from './runtime/job-runners.js';
import type { WebhookDrains } from './job-work.js';

/** The key of the jobs the clock sends: a key of its own, so that a clock's job never stands in for another's. */
const CLOCK_KEY = 'clock';
/** A resumed capture's priority: a capture whose worker died is taken before those not started yet (decision 0038). */
const RESUME_PRIORITY = 10;

/**
 * Kura's jobs on the queue: the Scheduler and PendingJobs ports the use cases ask through (each job
 * sent as its definition dedups it), and for workers the job runners and the clock.
 */
export class Jobs implements Scheduler, PendingJobs, WebhookDrains {
  private runners: JobRunners | null = null;
  private readonly clocks = new Set<() => void>();

  constructor(
    private readonly queue: JobQueue,
    private readonly onError: (error: Error) => void,
  ) {}

  /**
   * Queues a look at the record at `at` (now when absent). One look waits per record: when one
   * waits already, it is brought forward to `at` if that is earlier, so a moved-up start or an
   * admin's retry is not held back by a later look.
   */
  watch(livestreamId: string, at?: Date): Promise<void> {
    return this.send('watch-stream', { livestreamId }, at);
  }

  /**
   * Queues the recording of a record. A resume (a watchdog found its worker gone) is sent whatever
   * was sent in the dedup window: the job it replaces, the dead worker's, may have been sent in the
   * same window, and being refused as its duplicate would cost a window of stream. A duplicate
   * resume from another watchdog finds the capture held and ends when it does.
   */
  async capture(livestreamId: string, options?: { resume: boolean }): Promise<void> {
    if (options?.resume !== true) return this.send('capture-stream', { livestreamId });
    await this.queue.send('capture-stream', { livestreamId }, { key: livestreamId, priority: RESUME_PRIORITY });
  }

  chat(livestreamId: string): Promise<void> {
    return this.send('capture-chat', { livestreamId });
  }

  finalize(livestreamId: string): Promise<void> {
    return this.send('finalize-archive', { livestreamId });
  }

  /** Asks a worker to send the due webhook deliveries at `at` (now when absent); one such job waits at a time. */
  deliverWebhooks(at?: Date): Promise<void> {
    return this.send('deliver-webhooks', {}, at);
  }

  /** Asks a worker to bring the search index up to date (one such job waits at a time). */
  indexRecords(): Promise<void> {
    return this.send('index-records', {});
  }

  /** Sends a job due at `at` (now when absent), deduplicated as its definition says. */
  async send<N extends JobName>(name: N, payload: JobPayloads[N], at?: Date): Promise<void> {
    const { dedup } = JOBS[name] as JobDefinition;
    if (dedup === null) throw new Error(`${name} is sent by the clock only`);
    const options: SendOptions = { key: dedup.key(payload), ...(at ? { at } : {}) };
    await this.queue.send(name, payload, 'windowSeconds' in dedup ? { ...options, windowSeconds: dedup.windowSeconds } : { ...options, bringForward: true });
  }

  /** Sends the scheduled job of this period: every worker sends it, the queue keeps one per period (its window). */
  async sendScheduled(schedule: JobSchedule): Promise<void> {
    await this.queue.send(schedule.name, {}, { key: CLOCK_KEY, windowSeconds: schedule.everySeconds });
  }

  async pending(kind: Parameters<PendingJobs['pending']>[0], livestreamIds: readonly string[]): Promise<Set<string>> {
    const { name, states } = pendingJob(kind);
    // every such job is sent with the record id as its key
    return this.queue.keysIn(name, states, livestreamIds);
  }

  /**
   * Starts handling jobs (see job-runners.ts). A job that fails for good (a PermanentError, or its
   * last allowed attempt) runs its failure hook first; a PermanentError then ends the job without retries.
   */
  work(handlers: JobHandlers, hooks: JobFailureHooks, options: WorkOptions): void {
    this.runners = startJobRunners(this.queue, handlers, hooks, options, this.onError);
  }

  /** Sends `schedules` on Kura's clock (job-clock.ts) until the returned function, or `stop`, stops it. */
  startClock(schedules: readonly JobSchedule[]): () => void {
    const stop = startJobClock(schedules, (schedule) => this.sendScheduled(schedule), this.onError);
    this.clocks.add(stop);
    return () => {
      this.clocks.delete(stop);
      stop();
    };
  }

  /** The jobs waiting in each queue of the catalogue (a worker's /metrics). */
  waiting(): Promise<Map<string, number>> {
    return this.queue.waiting(JOB_NAMES);
  }

  /** The queue's upkeep (JobQueue.maintain): a dead worker's expired attempts retried, old jobs archived. */
  maintain(): Promise<void> {
    return this.queue.maintain();
  }

  /** Takes no more jobs (a stopping worker); those running go on. */
  pause(): void {
    this.runners?.pause();
  }

  /** Stops taking jobs; running handlers are given `timeoutMs` to finish, and those still running then are failed (retried later). */
  async stop(timeoutMs: number): Promise<void> {
    for (const stopClock of [...this.clocks]) stopClock();
    this.clocks.clear();
    await this.runners?.stop(Date.now() + timeoutMs);
    await this.queue.stop();
  }
}
