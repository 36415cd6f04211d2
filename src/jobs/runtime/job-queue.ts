/*
 * The port between Kura's background jobs and the queue that keeps them durable (pg-boss,
 * pg-boss-queue.ts beside it): the runtime runs jobs through it, and tests may put another queue
 * behind it. No use case calls it; use cases ask for work through core's `Scheduler`.
 */

/** A queued job's state, as the queue keeps it: waiting (`created`, `retry`), running, or ended. */
export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

/** How the queue treats one job's attempts: retries, their delay, and how long an attempt may run. */
export interface QueuePolicy {
  /** Attempts after the first before the job fails for good. */
  retryLimit: number;
  /** Seconds before a retry. */
  retryDelay?: number;
  /** Doubles the delay at each retry. */
  retryBackoff?: boolean;
  /** An attempt running longer fails (and is retried per the limit). */
  expireInSeconds: number;
}

/** One queue: its name and policy, and whether it keeps at most one waiting job per key. */
export interface QueueSpec extends QueuePolicy {
  name: string;
  /** At most one job per key waits (`created`); one running or retrying does not count. */
  oneWaitingPerKey: boolean;
}

/** How a job is sent: its key, when it is due, and which other job of its key makes it a duplicate. */
export interface SendOptions {
  /** What makes two jobs of one queue the same work (a record id, `search`, `clock`). */
  key: string;
  /** Due then (now when absent). */
  at?: Date;
  /** Not sent when a job of this key was sent in the same window of this many seconds (counted from the Unix epoch). */
  windowSeconds?: number;
  /** On a queue keeping one waiting job per key, when one waits already: bring it forward to `at` rather than send nothing. */
  bringForward?: boolean;
  /** Taken before the queue's jobs of a lower priority (0 when absent). */
  priority?: number;
}

/** A job as the queue hands it out, with what the runner needs to know of its attempts. */
export interface FetchedJob {
  id: string;
  /** The payload as stored: unknown until the job's schema has read it. */
  data: unknown;
  /** Retries made before this attempt. */
  retryCount: number;
  retryLimit: number;
  /** pg-boss reads it as a numeric, which arrives as a string. */
  expireInSeconds: number | string;
}

/** The durable queue under Kura's jobs: sending, fetching and settling jobs, and what waits. */
export interface JobQueue {
  send(name: string, data: object, options: SendOptions): Promise<void>;
  /** Takes up to `batchSize` due jobs of a queue (they are `active` then). */
  fetch(name: string, batchSize: number): Promise<FetchedJob[]>;
  /** Ends a job well; `output` is kept with it. */
  complete(name: string, id: string, output?: object): Promise<void>;
  /** Ends an attempt badly: the queue retries the job per its policy, or fails it. */
  fail(name: string, id: string, error: unknown): Promise<void>;
  /** Milliseconds until the earliest waiting job of each queue is due (≤ 0: due now); a queue with none waiting is left out. */
  due(names: readonly string[]): Promise<Map<string, number>>;
  /** The jobs waiting in each of the queues `names` (sent or to be retried, due or not), 0 for a queue with none. */
  waiting(names: readonly string[]): Promise<Map<string, number>>;
  /** The keys among `keys` with a job of queue `name` in one of `states`. */
  keysIn(name: string, states: readonly JobState[], keys: readonly string[]): Promise<Set<string>>;
  /**
   * The queue's upkeep: fails the attempts that outlived their expiry (a dead worker's: retried or
   * failed) at each call, and now and then moves finished jobs past their keeping time out of the
   * job table and drops old ones. Safe in many processes at once; writes nothing when there is
   * nothing to do.
   */
  maintain(): Promise<void>;
  /** Closes the queue's connections; nothing of the queue's own runs by then. */
  stop(): Promise<void>;
}
