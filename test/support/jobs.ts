import { PgBossJobs } from '../../src/jobs/pg-boss-jobs.js';
import type { JobName } from '../../src/jobs/catalogue.js';

/** A job as pg-boss keeps it in `pgboss.job`. */
export interface QueuedJob {
  id: string;
  data: { livestreamId?: string };
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  singletonKey: string | null;
  startAfter: Date;
}

/**
 * The real pg-boss on a test database, with no workers: what is sent stays in `pgboss.job`
 * for the test to read (see `queuedJobs`).
 */
export function startJobsWithoutWorkers(connectionString: string): Promise<PgBossJobs> {
  return PgBossJobs.start({
    connectionString,
    pollSeconds: 1,
    maxCaptures: 1,
    onError: (error) => {
      throw error;
    },
  });
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
