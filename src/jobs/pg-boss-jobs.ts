import PgBoss from 'pg-boss';
import type { PendingJobs, Scheduler } from '../core/livestream/ports.js';
import { finalFailure, JOB_NAMES, JOB_POLICIES, JOB_SCHEDULES, type JobFailureHooks, type JobHandlers, type JobName, type JobPayload } from './catalogue.js';

export interface JobsOptions {
  connectionString: string;
  /** How often idle workers look for jobs. */
  pollSeconds: number;
  /** Captures one worker process runs at once; the rest wait in the queue. */
  maxCaptures: number;
  onError: (error: Error) => void;
  /** Run pg-boss's clock and register JOB_SCHEDULES (workers); api processes and commands leave it off. */
  schedules?: boolean;
  /** Overrides of JOB_POLICIES (tests: fewer, quicker retries). */
  policies?: Partial<Record<JobName, Partial<PgBoss.Queue>>>;
}

/** pg-boss's queue of each job the sweep asks about; capture and finalize are judged running by their lease, not their job. */
const PENDING: Record<Parameters<PendingJobs['pending']>[0], { queue: JobName; states: string[] }> = {
  watch: { queue: 'watch-stream', states: ['created', 'retry', 'active'] },
  capture: { queue: 'capture-stream', states: ['created', 'retry'] },
  finalize: { queue: 'finalize-archive', states: ['created', 'retry'] },
};

/** pg-boss on Kura's database: the Scheduler port, and (for workers) the handlers. */
export class PgBossJobs implements Scheduler, PendingJobs {
  private constructor(private readonly boss: PgBoss) {}

  static async start(options: JobsOptions): Promise<PgBossJobs> {
    // the clock (cron) runs only where schedules are asked for: workers
    const schedule = options.schedules ?? false;
    const boss = new PgBoss({ connectionString: options.connectionString, max: 4, application_name: 'kura-jobs', schedule } as PgBoss.ConstructorOptions);
    boss.on('error', options.onError);
    await boss.start();
    for (const name of JOB_NAMES) {
      const policy = { ...JOB_POLICIES[name], ...options.policies?.[name] };
      await boss.createQueue(name, policy); // does nothing when the queue exists
      await boss.updateQueue(name, policy); // so a new release's limits apply to it
    }
    if (schedule) for (const { name, cron } of JOB_SCHEDULES) await boss.schedule(name, cron, {}, { tz: 'UTC' });
    return new PgBossJobs(boss);
  }

  /**
   * Starts handling jobs: one loop per allowed capture, one each for the short jobs. A job that
   * fails for good (a PermanentError, or its last allowed attempt) runs its failure hook first; a
   * PermanentError then ends the job without retries.
   */
  async work(handlers: JobHandlers, hooks: JobFailureHooks, options: Pick<JobsOptions, 'pollSeconds' | 'maxCaptures'>): Promise<void> {
    const loops: Array<[JobName, number]> = [
      ['watch-stream', 2],
      ['capture-stream', options.maxCaptures],
      ['finalize-archive', 1],
      ['index-records', 1],
      ['sweep-lifecycle', 1],
      ['verify-archives', 1],
      ['deliver-webhooks', 1],
    ];
    for (const [name, count] of loops) {
      const handle = handlers[name] as (payload: unknown, job: { id: string }) => Promise<void>;
      const onFailure = hooks[name] as (payload: unknown, failure: NonNullable<ReturnType<typeof finalFailure>>) => Promise<void>;
      for (let i = 0; i < count; i++) {
        await this.boss.work<JobPayload>(name, { batchSize: 1, pollingIntervalSeconds: options.pollSeconds, includeMetadata: true }, async ([job]) => {
          if (job === undefined) return;
          try {
            await handle(job.data, { id: job.id });
          } catch (error) {
            const failure = finalFailure(error, job);
            if (failure === null) throw error; // retried
            await onFailure(job.data, failure); // if this throws, the job is retried and the hook runs again
            if (!failure.permanent) throw error;
            return { permanentFailure: failure.message }; // completed: retrying cannot mend it
          }
        });
      }
    }
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

  async finalize(livestreamId: string): Promise<void> {
    await this.boss.send('finalize-archive', { livestreamId }, { singletonKey: livestreamId, singletonSeconds: 10 });
  }

  /** Asks a worker to bring the search index up to date (one such job waits at a time). */
  async indexRecords(): Promise<void> {
    await this.boss.send('index-records', {}, { singletonKey: 'search', singletonSeconds: 5 });
  }

  /** Stops taking jobs; running handlers are given `timeoutMs` to finish. */
  async stop(timeoutMs: number): Promise<void> {
    await this.boss.stop({ graceful: true, wait: true, timeout: timeoutMs });
  }
}
