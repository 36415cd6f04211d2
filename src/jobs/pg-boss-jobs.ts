import PgBoss from 'pg-boss';
import type { Scheduler } from '../core/ports.js';
import { JOB_NAMES, JOB_POLICIES, JOB_SCHEDULES, type JobHandlers, type JobName, type JobPayload } from './catalogue.js';

export interface JobsOptions {
  connectionString: string;
  /** How often idle workers look for jobs. */
  pollSeconds: number;
  /** Captures one worker process runs at once; the rest wait in the queue. */
  maxCaptures: number;
  onError: (error: Error) => void;
  /** Sends the cron jobs of JOB_SCHEDULES (worker processes); off for the CLI and api-only processes. */
  schedules?: boolean;
}

/** pg-boss on Kura's database: the Scheduler port, and (for workers) the handlers. */
export class PgBossJobs implements Scheduler {
  private constructor(private readonly boss: PgBoss) {}

  static async start(options: JobsOptions): Promise<PgBossJobs> {
    // pg-boss's clock and cron monitors run only where the schedules are sent from
    const schedule = options.schedules === true;
    const boss = new PgBoss({ connectionString: options.connectionString, max: 4, application_name: 'kura-jobs', schedule } as PgBoss.ConstructorOptions);
    boss.on('error', options.onError);
    await boss.start();
    for (const name of JOB_NAMES) {
      await boss.createQueue(name, JOB_POLICIES[name]); // does nothing when the queue exists
      await boss.updateQueue(name, JOB_POLICIES[name]); // so a new release's limits apply to it
    }
    if (schedule) for (const { name, cron } of JOB_SCHEDULES) await boss.schedule(name, cron, {}, { tz: 'UTC' });
    return new PgBossJobs(boss);
  }

  /** Starts handling jobs: one loop per allowed capture, one each for the short jobs. */
  async work(handlers: JobHandlers, options: Pick<JobsOptions, 'pollSeconds' | 'maxCaptures'>): Promise<void> {
    const loops: Array<[JobName, number]> = [
      ['watch-stream', 2],
      ['capture-stream', options.maxCaptures],
      ['finalize-archive', 1],
      ['index-records', 1],
      ['verify-archives', 1],
    ];
    for (const [name, count] of loops) {
      for (let i = 0; i < count; i++) {
        await this.boss.work<JobPayload>(name, { batchSize: 1, pollingIntervalSeconds: options.pollSeconds }, async ([job]) => {
          if (job !== undefined) await (handlers[name] as (payload: unknown, job: { id: string }) => Promise<void>)(job.data, { id: job.id });
        });
      }
    }
  }

  async watch(livestreamId: string, at?: Date): Promise<void> {
    await this.boss.send('watch-stream', { livestreamId }, { ...(at ? { startAfter: at } : {}), singletonKey: livestreamId });
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
