// Decisions: docs/decisions/0106-what-runs-when-idle.md, docs/decisions/0107-connection-budget.md, docs/decisions/0123-pg-boss-12.md
import type pg from 'pg';
import { PgBoss, type ConstructorOptions, type QueueOptions as BossQueueOptions, type SendOptions as BossSendOptions } from 'pg-boss';
import type { FetchedJob, JobQueue, JobState, QueueSpec, SendOptions } from './job-queue.js';
import { movePgBoss10Jobs, setPgBoss10Aside } from './pg-boss-10-jobs.js';
import {
  anyExpired,
  bringForward,
  deleteRetiredQueues,
  dueIn,
  forgetCronSchedules,
  installJobNotify,
  isInPlace,
  keysInStates,
  waitingIn,
  type PgBossDb,
} from './pg-boss-tables.js';

/** What the queue is started with: on which pool, which queues, and the channel its trigger notifies. */
export interface PgBossQueueOptions {
  /** The process's own pool: pg-boss runs on it rather than on a pool of its own (the connection budget, decision 0107). */
  pool: pg.Pool;
  /** Every queue Kura runs, with its policy: created when missing, updated when it exists (a new release's limits apply). */
  queues: readonly QueueSpec[];
  /** The channel the trigger on pg-boss's job table notifies of each waiting job (`<queue> <ms until due>`). */
  notifyChannel: string;
  /** Forget the schedules pg-boss's own clock kept for these queues (workers: Kura keeps the time itself). */
  forgetCronSchedules?: boolean;
  /** Queues of jobs an earlier release ran and this one does not: deleted with their jobs and schedules when forgetting. */
  retiredQueues?: readonly string[];
  /**
   * A CLI command's queue, which only sends: no setup of pg-boss's or Kura's when pg-boss, every
   * queue and the trigger are in place (a server started once made them); else set up as a
   * server's is, which makes them.
   */
  sendOnly?: boolean;
  onError: (error: Error) => void;
}

/** pg-boss's way of running SQL, on `pool`. */
function sqlOn(pool: pg.Pool): PgBossDb {
  return { executeSql: (text, values) => pool.query(text, values) };
}

/** Sends that found the one waiting job taken between the refused send and its bringing forward: sent again this many times at most. */
const SEND_ATTEMPTS = 3;
/** How often a process's maintenance runs pg-boss's whole supervision (deleting finished jobs past their keeping time, its queue figures) whatever happened. */
const SUPERVISE_EVERY_MS = 3_600_000;
/** pg-boss's timers Kura's own work stands in for, at a day. */
const ONCE_A_DAY_SECONDS = 86_400;

/**
 * pg-boss on Kura's database, as the JobQueue port: pg-boss keeps the jobs, their leases, retries,
 * retry delays and expiry; Kura runs them (src/jobs/runtime). pg-boss's own clock (cron), its workers and
 * its maintenance timer stay off: they poll or write on a timer, and Kura's loops wake on
 * notifications and run the maintenance themselves.
 */
export async function startPgBossQueue(options: PgBossQueueOptions): Promise<JobQueue> {
  const names = options.queues.map((q) => q.name);
  const db = sqlOn(options.pool);
  const inPlace = await isInPlace(db, names);
  const sendOnly = (options.sendOnly ?? false) && inPlace;
  const boss = new PgBoss({
    db,
    // Kura's loops keep the time and run the maintenance (src/jobs): pg-boss's own clock polls, and
    // its maintenance timer wrote the time it last maintained every two minutes, a write that kept
    // an idle cluster checkpointing
    schedule: false,
    supervise: false,
    // nor does a process note itself in pg-boss's registry of instances every half minute
    registerInstance: false,
    // pg-boss 12 reads its queues again every minute, and its builder of the indexes a migration
    // leaves to build after start (run at once by a start that migrates) stamps its time every
    // minute: once a day here, as Kura's queues change only at a start, which updates them
    queueCacheIntervalSeconds: ONCE_A_DAY_SECONDS,
    bamIntervalSeconds: ONCE_A_DAY_SECONDS,
    // a sender on a database set up already only checks pg-boss's schema version (two queries)
    migrate: !sendOnly,
  } satisfies ConstructorOptions);
  const queue = new PgBossQueue(boss, options.queues, options.onError);
  if (sendOnly) {
    await boss.start();
    return queue;
  }
  // one process at a time while something is missing: pg-boss's schema made in two at once (the api
  // and the worker thread of a first `kura serve`, the processes of a scale-out starting together)
  // collided on the schema's name; creating a queue (its partition) in one while another creates the
  // trigger (which locks every partition) deadlocked. Once all is in place, each only checks pg-boss's
  // version and updates its queues' policies, at once (a restarted worker does not wait for the
  // api's setup to take its captures back)
  await oneAtATime(inPlace ? null : options.pool, async () => {
    // pg-boss 10's schema (Kura up to 0.7), which pg-boss 12 cannot migrate: set aside, its jobs moved below
    await setPgBoss10Aside(db);
    await boss.start();
    for (const spec of options.queues) {
      const policy = queuePolicy(spec);
      await boss.createQueue(spec.name, { ...policy, policy: spec.oneWaitingPerKey ? 'short' : 'standard' }); // does nothing when the queue exists
      await boss.updateQueue(spec.name, policy);
    }
    // after the queues: creating the trigger locks every partition, which a queue created at once would deadlock with
    await installJobNotify(db, options.notifyChannel);
    // after the trigger, which tells the workers of each moved job
    await movePgBoss10Jobs(db);
    if (options.forgetCronSchedules ?? false) {
      const retired = options.retiredQueues ?? [];
      await forgetCronSchedules(db, [...names, ...retired]);
      await deleteRetiredQueues(db, retired);
    }
  });
  return queue;
}

/** The session lock the queues' setup holds (a constant of Kura's, apart from the migrations' and the sweep's). */
const SETUP_LOCK = 'kura_job_queue_setup';

/**
 * Runs `setup` while a connection of `pool` holds SETUP_LOCK, so processes (and threads) set the
 * queues up in turn; at once without `pool`. The connection is closed after, which releases the
 * lock whatever happened (it is the only one the setup opens, at a first start).
 */
async function oneAtATime(pool: pg.Pool | null, setup: () => Promise<void>): Promise<void> {
  if (pool === null) return setup();
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [SETUP_LOCK]);
    await setup();
  } finally {
    client.release(true);
  }
}

/** A queue's retries and expiry in pg-boss's words (one waiting job per key is its 'short' policy, which only a queue's creation sets). */
function queuePolicy(spec: QueueSpec): BossQueueOptions {
  const { retryLimit, retryDelay, retryBackoff, expireInSeconds } = spec;
  return { retryLimit, expireInSeconds, ...(retryDelay === undefined ? {} : { retryDelay }), ...(retryBackoff === undefined ? {} : { retryBackoff }) };
}

class PgBossQueue implements JobQueue {
  private readonly oneWaiting: Set<string>;
  /** Set once `stop` began: the pool's connections are closing, and their errors are expected. */
  private stopping = false;
  private readonly names: readonly string[];
  /** When maintain next runs pg-boss's whole supervision. */
  private nextSuperviseAtMs = 0;

  constructor(
    private readonly boss: PgBoss,
    queues: readonly QueueSpec[],
    onError: (error: Error) => void,
  ) {
    this.oneWaiting = new Set(queues.filter((q) => q.oneWaitingPerKey).map((q) => q.name));
    this.names = queues.map((q) => q.name);
    // pg-pool's end() resolves before its connections have closed: a connection the server ends then
    // (a test database dropped, the embedded PostgreSQL stopped) reports an error nobody can act on
    boss.on('error', (error: Error) => this.stopping || onError(error));
  }

  async send(name: string, data: object, options: SendOptions): Promise<void> {
    const sendOptions: BossSendOptions = {
      singletonKey: options.key,
      ...(options.at ? { startAfter: options.at } : {}),
      ...(options.windowSeconds === undefined ? {} : { singletonSeconds: options.windowSeconds }),
      ...(options.priority === undefined ? {} : { priority: options.priority }),
    };
    const bringsForward = (options.bringForward ?? false) && this.oneWaiting.has(name);
    // a worker may take the waiting job between the refused send and the update: then send again
    for (let attempt = 0; attempt < SEND_ATTEMPTS; attempt++) {
      if ((await this.boss.send(name, data, sendOptions)) !== null || !bringsForward) return;
      if (await bringForward(this.boss.getDb(), name, options.key, options.at ?? null)) return;
    }
    throw new Error(`Could not queue ${name} (${options.key}): the waiting one kept being taken.`);
  }

  fetch(name: string, batchSize: number): Promise<FetchedJob[]> {
    return this.boss.fetch<unknown>(name, { batchSize, includeMetadata: true });
  }

  async complete(name: string, id: string, output?: object): Promise<void> {
    await (output === undefined ? this.boss.complete(name, id) : this.boss.complete(name, id, output));
  }

  async fail(name: string, id: string, error: unknown): Promise<void> {
    await this.boss.fail(name, id, error as object);
  }

  due(names: readonly string[]): Promise<Map<string, number>> {
    return dueIn(this.boss.getDb(), names);
  }

  waiting(names: readonly string[]): Promise<Map<string, number>> {
    return waitingIn(this.boss.getDb(), names);
  }

  keysIn(name: string, states: readonly JobState[], keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return Promise.resolve(new Set());
    return keysInStates(this.boss.getDb(), name, states, keys);
  }

  /**
   * pg-boss's maintenance in two paces (decision 0086): its supervision (expiry of the attempts that
   * outlived it, deletion of finished jobs past their keeping time, its queue figures) runs at a call
   * that finds an expired attempt (a dead worker's job is retried that soon), and once an hour
   * whatever happened. pg-boss 12 expires only within its supervision, which stamps each queue's
   * row: run at every call, it would keep an idle cluster writing (decision 0123).
   */
  async maintain(): Promise<void> {
    const hourly = Date.now() >= this.nextSuperviseAtMs;
    if (!hourly && !(await anyExpired(this.boss.getDb(), this.names))) return;
    await this.boss.supervise();
    if (hourly) this.nextSuperviseAtMs = Date.now() + SUPERVISE_EVERY_MS;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.boss.stop({ graceful: false }); // nothing of pg-boss's own is running: Kura's runners waited
  }
}
