import PgBoss from 'pg-boss';
import type { Scheduler } from '../core/ports.js';
import { JOB_NAMES, JOB_POLICIES, type JobHandlers, type JobName, type JobPayload } from './catalogue.js';

export interface JobsOptions {
  connectionString: string;
  /** How often idle workers look for jobs. */
  pollSeconds: number;
  /** Captures one worker process runs at once; the rest wait in the queue. */
  maxCaptures: number;
  onError: (error: Error) => void;
}

/** pg-boss on Kura's database: the Scheduler port, and (for workers) the handlers. */
export class PgBossJobs implements Scheduler {
  private constructor(private readonly boss: PgBoss) {}

  static async start(options: JobsOptions): Promise<PgBossJobs> {
    // no cron schedules are used: skip pg-boss's clock and cron monitors
    const boss = new PgBoss({ connectionString: options.connectionString, max: 4, application_name: 'kura-jobs', schedule: false } as PgBoss.ConstructorOptions);
    boss.on('error', options.onError);
    await boss.start();
    for (const name of JOB_NAMES) {
      await boss.createQueue(name, JOB_POLICIES[name]); // does nothing when the queue exists
      await boss.updateQueue(name, JOB_POLICIES[name]); // so a new release's limits apply to it
    }
    return new PgBossJobs(boss);
  }

  /** Starts handling jobs: one loop per allowed capture, one each for the short jobs. */
  async work(handlers: JobHandlers, options: Pick<JobsOptions, 'pollSeconds' | 'maxCaptures'>): Promise<void> {
    const loops: Array<[JobName, number]> = [
      ['watch-stream', 2],
      ['capture-stream', options.maxCaptures],
      ['finalize-archive', 1],
      ['index-records', 1],
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
