import PgBoss from 'pg-boss';
import type { ChangeFeed, PendingJobs, Scheduler } from '../core/livestream/ports.js';
import { finalFailure, JOB_NAMES, JOB_POLICIES, JOB_SCHEDULES, type JobFailureHooks, type JobHandlers, type JobName, type JobSchedule } from './catalogue.js';
import { startJobClock } from './job-clock.js';
import { QueueRunner, type FetchedJob, type JobStore } from './queue-runner.js';

export interface JobsOptions {
  connectionString: string;
  onError: (error: Error) => void;
  /** Send the scheduled jobs (JOB_SCHEDULES) on Kura's clock: workers; api processes and commands leave it off. */
  schedules?: boolean;
  /** Overrides of JOB_POLICIES (tests: fewer, quicker retries). */
  policies?: Partial<Record<JobName, Partial<PgBoss.Queue>>>;
}

export interface WorkOptions {
  /** Captures one worker process runs at once; the rest wait in the queue. */
  maxCaptures: number;
  /** The `kura_jobs` notifications (JOB_NOTIFY_CHANNEL): a job sent or brought forward by any process wakes its queue. */
  wake: ChangeFeed;
  /** How often the job table is looked at whatever the notifications said (KURA_JOB_POLL_SECONDS): the backstop. */
  backstopSeconds: number;
}

/** The channel the trigger on pgboss.job notifies: `<queue> <ms until due>` for each job sent, retried or brought forward. */
export const JOB_NOTIFY_CHANNEL = 'kura_jobs';

/** pg-boss's queue of each job the sweep asks about; capture and finalize are judged running by their lease, not their job. */
const PENDING: Record<Parameters<PendingJobs['pending']>[0], { queue: JobName; states: string[] }> = {
  watch: { queue: 'watch-stream', states: ['created', 'retry', 'active'] },
  capture: { queue: 'capture-stream', states: ['created', 'retry'] },
  finalize: { queue: 'finalize-archive', states: ['created', 'retry'] },
};

/** pg-boss on Kura's database: the Scheduler port, and (for workers) the handlers. */
export class PgBossJobs implements Scheduler, PendingJobs {
  private runners: QueueRunner[] = [];
  private stopClock: () => void = () => undefined;
  private backstop: NodeJS.Timeout | undefined;

  /** Set once `stop` began: the pool's connections are closing, and their errors are expected. */
  private stopping = false;

  private constructor(
    private readonly boss: PgBoss,
    private readonly onError: (error: Error) => void,
  ) {
    // pg-pool's end() resolves before its connections have closed: a connection the server ends then
    // (a test database dropped, the embedded PostgreSQL stopped) reports an error nobody can act on
    boss.on('error', (error: Error) => this.stopping || onError(error));
  }

  static async start(options: JobsOptions): Promise<PgBossJobs> {
    // pg-boss's own clock (cron) polls a queue of its own every 5 s: Kura keeps the time itself (job-clock.ts)
    const boss = new PgBoss({
      connectionString: options.connectionString,
      max: 4,
      min: 1,
      application_name: 'kura-jobs',
      schedule: false,
    } as PgBoss.ConstructorOptions);
    const jobs = new PgBossJobs(boss, options.onError);
    await boss.start();
    for (const name of JOB_NAMES) {
      const policy = { ...JOB_POLICIES[name], ...options.policies?.[name] };
      await boss.createQueue(name, policy); // does nothing when the queue exists
      await boss.updateQueue(name, policy); // so a new release's limits apply to it
    }
    // after the queues: creating the trigger locks every partition, which a queue created at once would deadlock with
    await notifyOnJobs(boss);
    if (options.schedules ?? false) {
      // the schedules pg-boss's clock kept up to 0.6: no process runs that clock any more
      await boss.getDb().executeSql('delete from pgboss.schedule where name = any($1::text[])', [JOB_NAMES]);
      jobs.stopClock = startJobClock(JOB_SCHEDULES, (schedule) => jobs.sendScheduled(schedule), options.onError);
    }
    return jobs;
  }

  /**
   * Starts handling jobs: one runner per queue, running as many at once as the queue allows
   * (captures: `maxCaptures`), woken by the jobs sent rather than polling. A job that fails for
   * good (a PermanentError, or its last allowed attempt) runs its failure hook first; a
   * PermanentError then ends the job without retries.
   */
  work(handlers: JobHandlers, hooks: JobFailureHooks, options: WorkOptions): void {
    const store = this.store();
    this.runners = JOB_NAMES.map(
      (name) => new QueueRunner({ name, concurrency: concurrency(name, options.maxCaptures), run: runner(handlers, hooks, name) }, store, this.onError),
    );
    const byName = new Map(this.runners.map((r) => [r.name, r]));
    const recheck = () => {
      store.due(JOB_NAMES).then((due) => {
        for (const r of this.runners) if (due.has(r.name)) r.wakeIn(due.get(r.name) as number);
      }, this.onError);
    };
    options.wake.onChange((payload) => {
      // none: the notifications (re)connected or were lost, and jobs may have been sent meanwhile
      if (payload === undefined) return recheck();
      const [name = '', ms = '0'] = payload.split(' ');
      byName.get(name)?.wakeIn(Number(ms));
    });
    this.backstop = setInterval(recheck, options.backstopSeconds * 1000);
    this.backstop.unref();
    recheck();
  }

  /** Takes no more jobs (a stopping worker); those running go on. */
  pause(): void {
    clearInterval(this.backstop);
    for (const r of this.runners) r.pause();
  }

  async pending(job: Parameters<PendingJobs['pending']>[0], livestreamIds: readonly string[]): Promise<Set<string>> {
    if (livestreamIds.length === 0) return new Set();
    const { queue, states } = PENDING[job];
    // every such job is sent with the record id as its singleton key
    const { rows } = (await this.boss.getDb().executeSql(
      `select distinct singleton_key as id from pgboss.job
       where name = $1 and state = any($2::pgboss.job_state[]) and singleton_key = any($3::text[])`,
      [queue, states, livestreamIds],
    )) as { rows: Array<{ id: string }> };
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Queues a look at the record at `at` (now when absent). One look waits per record (the queue's
   * 'short' policy refuses a second): when one waits already, it is brought forward to `at` if that
   * is earlier, so a moved-up start or an admin's retry is not held back by a later look.
   */
  async watch(livestreamId: string, at?: Date): Promise<void> {
    await this.sendOrBringForward('watch-stream', { livestreamId }, livestreamId, at);
  }

  /** Asks a worker to send the due webhook deliveries at `at` (now when absent); one such job waits at a time. */
  async deliverWebhooks(at?: Date): Promise<void> {
    await this.sendOrBringForward('deliver-webhooks', {}, 'webhooks', at);
  }

  /** Sends a job of a 'short' queue, or brings the one waiting under `key` forward to `at`. */
  private async sendOrBringForward(name: JobName, data: object, key: string, at?: Date): Promise<void> {
    // a worker may take the waiting job between the refused send and the update: then send again
    for (let attempt = 0; attempt < 3; attempt++) {
      if ((await this.boss.send(name, data, { ...(at ? { startAfter: at } : {}), singletonKey: key })) !== null) return;
      const { rows } = await this.boss.getDb().executeSql(
        `update pgboss.job set start_after = least(start_after, coalesce($3::timestamptz, now()))
         where name = $1 and singleton_key = $2 and state = 'created' returning id`,
        [name, key, at ?? null],
      );
      if (rows.length > 0) return;
    }
    throw new Error(`Could not queue ${name} (${key}): the waiting one kept being taken.`);
  }

  async capture(livestreamId: string): Promise<void> {
    // several watchdogs may ask at once: one job per stream per 10 s is enough
    await this.boss.send('capture-stream', { livestreamId }, { singletonKey: livestreamId, singletonSeconds: 10 });
  }

  async chat(livestreamId: string): Promise<void> {
    await this.boss.send('capture-chat', { livestreamId }, { singletonKey: livestreamId, singletonSeconds: 10 });
  }

  async finalize(livestreamId: string): Promise<void> {
    await this.boss.send('finalize-archive', { livestreamId }, { singletonKey: livestreamId, singletonSeconds: 10 });
  }

  /** Asks a worker to bring the search index up to date (one such job waits at a time). */
  async indexRecords(): Promise<void> {
    await this.boss.send('index-records', {}, { singletonKey: 'search', singletonSeconds: 5 });
  }

  /** Sends the scheduled job of this period: every worker sends it, pg-boss keeps one per period (its singleton slot). */
  async sendScheduled(schedule: JobSchedule): Promise<void> {
    // a key of its own: a 'short' queue keeps one waiting job per key, and the clock's must not stand in for another's
    await this.boss.send(schedule.name, {}, { singletonKey: 'clock', singletonSeconds: schedule.everySeconds });
  }

  /** pg-boss's fetch, complete and fail, and when each queue's next job is due. */
  private store(): JobStore {
    const boss = this.boss;
    return {
      fetch: (name, batchSize) => boss.fetch<unknown>(name, { batchSize, includeMetadata: true }),
      complete: (name, id, output) => (output === undefined ? boss.complete(name, id) : boss.complete(name, id, output)),
      fail: (name, id, error) => boss.fail(name, id, error as object),
      async due(names) {
        const { rows } = (await boss.getDb().executeSql(
          `select name, extract(epoch from min(start_after) - now())::float8 * 1000 as ms from pgboss.job
           where name = any($1::text[]) and state < 'active' group by name`,
          [names],
        )) as { rows: Array<{ name: string; ms: number }> };
        return new Map(rows.map((r) => [r.name, r.ms]));
      },
    };
  }

  /** Stops taking jobs; running handlers are given `timeoutMs` to finish, and those still running then are failed (retried later). */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.stopClock();
    this.pause();
    const deadline = Date.now() + timeoutMs;
    await Promise.all(this.runners.map((r) => r.stop(deadline)));
    await this.boss.stop({ graceful: false, wait: true }); // nothing of pg-boss's own is running: the runners waited
  }
}

/** Jobs of a queue one worker process runs at once. */
function concurrency(name: JobName, maxCaptures: number): number {
  // a chat runs beside each capture (a yt-dlp process, mostly waiting)
  if (name === 'capture-stream' || name === 'capture-chat') return maxCaptures;
  return name === 'watch-stream' ? 2 : 1;
}

/** A job's run: its handler, then on a final failure its hook; a PermanentError completes the job (retrying cannot mend it). */
function runner(handlers: JobHandlers, hooks: JobFailureHooks, name: JobName): (job: FetchedJob) => Promise<object | undefined> {
  const handle = handlers[name] as (payload: unknown, job: { id: string }) => Promise<void>;
  const onFailure = hooks[name] as (payload: unknown, failure: NonNullable<ReturnType<typeof finalFailure>>) => Promise<void>;
  return async (job) => {
    try {
      await handle(job.data, { id: job.id });
      return undefined;
    } catch (error) {
      const failure = finalFailure(error, job);
      if (failure === null) throw error; // retried
      await onFailure(job.data, failure); // if this throws, the job is retried and the hook runs again
      if (!failure.permanent) throw error;
      return { permanentFailure: failure.message };
    }
  };
}

/**
 * A trigger on pgboss.job (partitioned per queue: PostgreSQL gives each queue's partition, present
 * or created later, a clone of it) notifies JOB_NOTIFY_CHANNEL of every job that waits to run:
 * sent by any process (api, CLI, a worker's clock), failed into a retry, or brought forward. It
 * lives with pg-boss's schema rather than in a migration, as that schema is pg-boss's to create
 * (after Kura's migrations, on a new database); created once, under a lock, by the first start.
 */
async function notifyOnJobs(boss: PgBoss): Promise<void> {
  const db = boss.getDb();
  const found = (await db.executeSql(
    `select 1 from pg_trigger where tgrelid = 'pgboss.job'::regclass and tgname = 'kura_job_notify' and tgparentid = 0`,
    [],
  )) as {
    rows: unknown[];
  };
  if (found.rows.length > 0) return;
  // one simple query: one transaction, so the lock is held to the end and an error leaves nothing behind
  await db.executeSql(
    `
    select pg_advisory_xact_lock(hashtext('kura_job_notify'));
    -- the queue, and how long until the job is due (ms; ≤ 0: now), so a worker can sleep until then
    create or replace function kura_job_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('${JOB_NOTIFY_CHANNEL}', NEW.name || ' ' || floor(extract(epoch from NEW.start_after - now()) * 1000)::bigint);
      return null;
    end $$;
    create or replace trigger kura_job_notify after insert or update of start_after on pgboss.job
      for each row when (NEW.state < 'active') execute function kura_job_notify();`,
    [], // no parameters: the simple protocol, which runs several statements
  );
}
