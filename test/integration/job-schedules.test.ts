import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PgBossJobs } from '../../src/jobs/pg-boss-jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(() => db.drop());

const start = (schedules?: boolean) =>
  PgBossJobs.start({ connectionString: db.url, pollSeconds: 1, maxCaptures: 1, onError: (error) => expect.fail(error.message), ...(schedules === undefined ? {} : { schedules }) });
const scheduled = async () => (await db.pool.query('select name, cron, timezone from pgboss.schedule order by name')).rows;

describe('job schedules', () => {
  it('a worker registers the lifecycle sweep (every minute) and the hourly verify-archives run with pg-boss (UTC)', async () => {
    const jobs = await start(true);
    try {
      expect(await scheduled()).toEqual([
        { name: 'sweep-lifecycle', cron: '* * * * *', timezone: 'UTC' },
        { name: 'verify-archives', cron: '23 * * * *', timezone: 'UTC' },
      ]);
    } finally {
      await jobs.stop(1000);
    }
  });

  it('a process that only schedules (the CLI, an api process) registers none', async () => {
    const jobs = await start();
    try {
      expect(await scheduled()).toEqual([]);
    } finally {
      await jobs.stop(1000);
    }
  });
});
