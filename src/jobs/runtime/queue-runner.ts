// Decisions: docs/decisions/0029-jobs-woken-not-polled.md
import type { FetchedJob, JobQueue } from './job-queue.js';

/** What a queue runner asks of the queue: its fetch, complete and fail (leases, retries, retry delays and expiry stay the queue's). */
export type JobStore = Pick<JobQueue, 'fetch' | 'complete' | 'fail' | 'due'>;

export interface QueueOptions {
  name: string;
  /** Jobs of this queue this process runs at once. */
  concurrency: number;
  /** Runs one job: resolves with its output (the job is completed) or throws (the attempt failed: the queue retries it per its policy). */
  run: (job: FetchedJob) => Promise<object | undefined>;
}

/** A job due but not fetched was another worker's fetch in flight: look again this much later rather than at once. */
const RECHECK_MS = 1_000;

/**
 * One queue's jobs in this process: up to `concurrency` at once, fetched only when there may be
 * one ready (a job sent or retried, a delayed one due: `wakeIn`) rather than on a polling loop. A
 * job that ends frees its slot, which fetches again at once when jobs may still be waiting. Between
 * wake-ups it sleeps.
 */
export class QueueRunner {
  private readonly running = new Map<string, Promise<void>>();
  /** Jobs failed by `stop` while their handler still ran: their late end is not reported. */
  private readonly abandoned = new Set<string>();
  /** Jobs may be ready that no fetch has taken yet. */
  private pending = false;
  /**
   * The alarm rang: it kept only the earliest of the wake-ups asked for, so once nothing is ready
   * the job table says when the next job is due.
   */
  private alarmRang = false;
  private fetching = false;
  private stopped = false;
  private readonly alarm = new Alarm(() => {
    this.alarmRang = true;
    this.wakeIn(0);
  });

  constructor(
    private readonly queue: QueueOptions,
    private readonly store: JobStore,
    private readonly onError: (error: Error) => void,
  ) {}

  get name(): string {
    return this.queue.name;
  }

  /** A job may be ready once `ms` have passed (now when ≤ 0): fetch then. One alarm: the earliest wake-up wins. */
  wakeIn(ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) {
      this.pending = true;
      return void this.pump();
    }
    this.alarm.setIn(ms);
  }

  /** Takes no more jobs; those running go on. */
  pause(): void {
    this.stopped = true;
    this.alarm.clear();
  }

  /**
   * Takes no more jobs and waits until `deadline` (epoch ms) for the running ones; those still
   * running then are failed, so pg-boss retries them as it would a crashed worker's.
   */
  async stop(deadline: number): Promise<void> {
    this.pause();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))));
    await Promise.race([Promise.all(this.running.values()), late]);
    clearTimeout(timer);
    for (const id of this.running.keys()) {
      this.abandoned.add(id);
      await this.store.fail(this.queue.name, id, new Error('Kura stopped while the job ran')).catch(this.onError);
    }
  }

  private async pump(): Promise<void> {
    if (this.fetching) return; // the fetch in flight looks again: `pending` says so
    this.fetching = true;
    try {
      while (this.pending && !this.stopped) {
        const free = this.queue.concurrency - this.running.size;
        if (free <= 0) return; // the next job to end fetches
        this.pending = false;
        // fetched after a stop too: they are active now, and run like those already running
        const jobs = await this.store.fetch(this.queue.name, free);
        for (const job of jobs) this.start(job);
        if (jobs.length === free)
          this.pending = true; // more may wait
        else if (this.alarmRang) await this.sleepUntilDue();
      }
    } catch (error) {
      this.onError(error as Error); // the notifications' reconnection, or the backstop, looks again
    } finally {
      this.fetching = false;
    }
  }

  /** Nothing is ready: sleeps until the next job the job table holds is due. */
  private async sleepUntilDue(): Promise<void> {
    this.alarmRang = false;
    const due = (await this.store.due([this.queue.name])).get(this.queue.name);
    if (due !== undefined) this.wakeIn(due <= 0 ? RECHECK_MS : due);
  }

  private start(job: FetchedJob): void {
    const done = this.settle(job).finally(() => {
      this.running.delete(job.id);
      this.abandoned.delete(job.id);
      void this.pump();
    });
    this.running.set(job.id, done);
  }

  /** Runs the job within its expiry (as pg-boss's own workers do), then completes or fails it. */
  private async settle(job: FetchedJob): Promise<void> {
    let output: object | undefined;
    try {
      output = await withinSeconds(this.queue.run(job), Number(job.expireInSeconds));
    } catch (error) {
      if (!this.abandoned.has(job.id)) await this.store.fail(this.queue.name, job.id, error).catch(this.onError);
      return;
    }
    if (!this.abandoned.has(job.id)) await this.store.complete(this.queue.name, job.id, output).catch(this.onError);
  }
}

/** `work`, or a rejection once `seconds` have passed; the work itself goes on (a handler cannot be cut short). */
function withinSeconds<T>(work: Promise<T>, seconds: number): Promise<T> {
  const ms = Math.max(1, seconds) * 1000;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the job ran past its expiry (${ms} ms)`)), ms);
    timer.unref();
  });
  work.catch(() => undefined); // its failure after the expiry is nobody's to hear
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** Node's timers hold at most 2^31 - 1 ms (about 24 days); an alarm set further rings then, early. */
const MAX_TIMER_MS = 2_147_483_647;

/** One timer keeping the earliest of the times it is set for: what sleeps until the next thing is due. */
class Alarm {
  private timer: NodeJS.Timeout | undefined;
  private at = Infinity;

  constructor(private readonly ring: () => void) {}

  /** Rings in `ms` (at once, on the next turn, when ≤ 0), unless it is set to ring sooner already. */
  setIn(ms: number): void {
    const at = Date.now() + ms;
    if (at >= this.at) return;
    clearTimeout(this.timer);
    this.at = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.at = Infinity;
        this.ring();
      },
      Math.min(Math.max(0, ms), MAX_TIMER_MS),
    );
    this.timer.unref();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.at = Infinity;
  }
}
