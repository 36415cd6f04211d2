// Decisions: docs/decisions/0119-tests-that-cannot-lie.md
import type pg from 'pg';
import { listenForChanges } from '../../src/adapters/db/change-listener.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { JOB_NOTIFY_CHANNEL } from '../../src/jobs/runtime/notify-channels.js';
import { startJobs } from '../../src/wiring/jobs.js';
import type { JobFailureHooks, JobHandlers, JobName } from '../../src/jobs/catalogue.js';

/** A job as pg-boss keeps it in `pgboss.job`. */
export interface QueuedJob {
  id: string;
  data: { livestreamId?: string };
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  singletonKey: string | null;
  startAfter: Date;
}

/**
 * The real pg-boss on a test database's `pool`, with no workers: what is sent stays in `pgboss.job`
 * for the test to read (see `queuedJobs`).
 */
export function startJobsWithoutWorkers(pool: pg.Pool): Promise<Jobs> {
  return startJobs({
    pool,
    onError: (error) => {
      throw error;
    },
  });
}

/**
 * Makes `jobs` work `handlers` as a worker process does, woken by the job notifications: the
 * backstop look at the job table is an hour away unless `backstopSeconds` says otherwise, so a job
 * that starts soon started because it was sent. Resolves with a stop function (running handlers
 * get `timeoutMs`) that also ends the notifications.
 */
export async function workJobs(
  jobs: Jobs,
  connectionString: string,
  work: { handlers: JobHandlers; hooks: JobFailureHooks },
  options: { maxCaptures?: number; backstopSeconds?: number } = {},
): Promise<(timeoutMs?: number) => Promise<void>> {
  const wake = await listenForChanges(connectionString, () => undefined, JOB_NOTIFY_CHANNEL);
  jobs.work(work.handlers, work.hooks, { maxCaptures: options.maxCaptures ?? 1, wake, backstopSeconds: options.backstopSeconds ?? 3600 });
  return async (timeoutMs = 1000) => {
    await jobs.stop(timeoutMs);
    await wake.close();
  };
}

/** The jobs named `name` in `pgboss.job`, oldest first; `livestreamId` keeps only that record's. */
export async function queuedJobs(
  db: { pool: { query: (sql: string, params: unknown[]) => Promise<{ rows: QueuedJob[] }> } },
  name: JobName,
  livestreamId?: string,
): Promise<QueuedJob[]> {
  const { rows } = await db.pool.query(
    `select id, data, state, singleton_key as "singletonKey", start_after as "startAfter" from pgboss.job
     where name = $1 and ($2::text is null or data->>'livestreamId' = $2) order by created_on, id`,
    [name, livestreamId ?? null],
  );
  return rows;
}
