import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PgBossJobs } from '../../src/jobs/pg-boss-jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { queuedJobs, startJobsWithoutWorkers } from '../support/jobs.js';

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(() => db.drop());

const start = (schedules?: boolean) =>
  PgBossJobs.start({
    connectionString: db.url,
    pollSeconds: 1,
    maxCaptures: 1,
    onError: (error) => expect.fail(error.message),
    ...(schedules === undefined ? {} : { schedules }),
  });
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

describe('sending jobs (pg-boss on the test database, no workers)', () => {
  it('queues a capture and a finalize once per stream however often they are asked for, keyed by the record', async () => {
    const jobs = await startJobsWithoutWorkers(db.url);
    try {
      await Promise.all([jobs.capture('s1'), jobs.capture('s1'), jobs.capture('s2'), jobs.finalize('s1'), jobs.finalize('s1')]);
      expect(await queuedJobs(db, 'capture-stream')).toEqual([
        expect.objectContaining({ data: { livestreamId: 's1' }, state: 'created', singletonKey: 's1' }),
        expect.objectContaining({ data: { livestreamId: 's2' }, state: 'created', singletonKey: 's2' }),
      ]);
      expect(await queuedJobs(db, 'finalize-archive')).toEqual([
        expect.objectContaining({ data: { livestreamId: 's1' }, state: 'created', singletonKey: 's1' }),
      ]);
    } finally {
      await jobs.stop(0);
    }
  });

  // a second watch of the same record is NOT refused by pg-boss (a singleton key alone dedupes
  // nothing under the queue's standard policy): submissions dedupe in archiveStream instead, see
  // submit.test.ts, and the sweep asks `pending` first
  it('queues a watch for later when asked for a time, keyed by the record', async () => {
    const jobs = await startJobsWithoutWorkers(db.url);
    try {
      const at = new Date(Date.now() + 3_600_000);
      await jobs.watch('w1', at);
      const watches = await queuedJobs(db, 'watch-stream');
      expect(watches.map((job) => job.state)).toEqual(['created']);
      expect(watches[0]).toMatchObject({ data: { livestreamId: 'w1' }, singletonKey: 'w1' });
      expect(Math.abs(watches[0]!.startAfter.getTime() - at.getTime())).toBeLessThan(1000);
    } finally {
      await jobs.stop(0);
    }
  });
});
