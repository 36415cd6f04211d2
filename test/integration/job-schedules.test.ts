import { PgBoss } from 'pg-boss';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOB_NAMES, JOB_SCHEDULES, type JobName } from '../../src/jobs/catalogue.js';
import type { JobSchedule } from '../../src/jobs/job-definition.js';
import { startJobs } from '../../src/wiring/jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { queuedJobs, startJobsWithoutWorkers } from '../support/jobs.js';

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(() => db.drop());

const start = (schedules?: boolean) =>
  startJobs({
    pool: db.pool,
    onError: (error) => expect.fail(error.message),
    ...(schedules === undefined ? {} : { forgetCronSchedules: schedules }),
  });
const schedule = (name: JobName) => JOB_SCHEDULES.find((s) => s.name === name) as JobSchedule;

describe('scheduled jobs', () => {
  it('every worker sends each tick, and the cluster runs it once: one job per period', async () => {
    const one = await start();
    const two = await start();
    try {
      // two workers' clocks strike the same minute, one of them twice
      await Promise.all([
        one.sendScheduled(schedule('apply-retention')),
        two.sendScheduled(schedule('apply-retention')),
        two.sendScheduled(schedule('apply-retention')),
      ]);
      await Promise.all([one.sendScheduled(schedule('verify-archives')), two.sendScheduled(schedule('verify-archives'))]);
      expect((await queuedJobs(db, 'apply-retention')).map((job) => job.state)).toEqual(['created']);
      expect((await queuedJobs(db, 'verify-archives')).map((job) => job.state)).toEqual(['created']);
    } finally {
      await Promise.all([one.stop(1000), two.stop(1000)]);
    }
  });

  it("a worker forgets the schedules pg-boss's own clock kept (0.6 and before): no process runs that clock any more", async () => {
    const boss = new PgBoss({ connectionString: db.url, schedule: false, supervise: false });
    await boss.start();
    for (const name of JOB_NAMES) await boss.createQueue(name);
    await boss.schedule('verify-archives', '23 * * * *', {}, { tz: 'UTC' });
    await boss.stop({ graceful: false });
    const api = await start();
    expect((await db.pool.query('select name from pgboss.schedule')).rows).toEqual([{ name: 'verify-archives' }]);
    const worker = await start(true);
    try {
      expect((await db.pool.query('select name from pgboss.schedule')).rows).toEqual([]);
    } finally {
      await Promise.all([api.stop(1000), worker.stop(1000)]);
    }
  });

  it('a worker deletes the queue of a job Kura no longer has (0.6’s sweep-lifecycle), with its waiting job and schedule', async () => {
    const boss = new PgBoss({ connectionString: db.url, schedule: false, supervise: false });
    await boss.start();
    await boss.createQueue('sweep-lifecycle');
    await boss.send('sweep-lifecycle', {});
    await boss.schedule('sweep-lifecycle', '* * * * *', {}, { tz: 'UTC' });
    await boss.stop({ graceful: false });
    const queues = () => db.pool.query<{ name: string }>('select name from pgboss.queue order by name').then((r) => r.rows.map((row) => row.name));
    const api = await start();
    expect(await queues()).toContain('sweep-lifecycle');
    // two workers starting together: one deletes it, neither fails
    const workers = await Promise.all([start(true), start(true)]);
    try {
      expect(await queues()).toEqual([...JOB_NAMES].sort());
      expect((await db.pool.query("select count(*)::int as n from pgboss.job where name = 'sweep-lifecycle'")).rows[0].n).toBe(0);
      expect((await db.pool.query('select name from pgboss.schedule')).rows).toEqual([]);
    } finally {
      await Promise.all([api.stop(1000), ...workers.map((w) => w.stop(1000))]);
    }
  });
});

describe('sending jobs (pg-boss on the test database, no workers)', () => {
  it('queues a capture and a finalize once per stream however often they are asked for, keyed by the record', async () => {
    const jobs = await startJobsWithoutWorkers(db.pool);
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

  it('queues a watch for later when asked for a time, keyed by the record', async () => {
    const jobs = await startJobsWithoutWorkers(db.pool);
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

  it('queues one look per record however often it is watched; the earliest asked-for time wins', async () => {
    const jobs = await startJobsWithoutWorkers(db.pool);
    try {
      const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000);
      await jobs.watch('w1', inMinutes(120));
      await jobs.watch('w1', inMinutes(60)); // the source moved the start earlier
      await jobs.watch('w1', inMinutes(180)); // a later look does not push it back
      await jobs.watch('w2');
      const [look, ...more] = await queuedJobs(db, 'watch-stream', 'w1');
      expect(more).toEqual([]);
      expect(look).toMatchObject({ state: 'created', singletonKey: 'w1' });
      expect(Math.abs(look!.startAfter.getTime() - inMinutes(60).getTime())).toBeLessThan(5000);
      await jobs.watch('w1'); // an admin's retry: look now
      expect((await queuedJobs(db, 'watch-stream', 'w1')).map((job) => job.id)).toEqual([look!.id]);
      expect((await queuedJobs(db, 'watch-stream', 'w1'))[0]!.startAfter.getTime()).toBeLessThanOrEqual(Date.now());
      expect((await queuedJobs(db, 'watch-stream', 'w2')).map((job) => job.state)).toEqual(['created']);
    } finally {
      await jobs.stop(0);
    }
  });

  it('a look asked for while one runs is queued (once) and is the next one a worker takes', async () => {
    const jobs = await startJobsWithoutWorkers(db.pool);
    const worker = new PgBoss({ connectionString: db.url, schedule: false, supervise: false });
    await worker.start();
    try {
      await jobs.watch('w1');
      const [running] = await worker.fetch<{ livestreamId: string }>('watch-stream');
      expect(running?.data).toEqual({ livestreamId: 'w1' });
      await jobs.watch('w1'); // the running look finds the stream not live yet and asks for the next
      await jobs.watch('w1');
      const queued = await queuedJobs(db, 'watch-stream', 'w1');
      expect(queued.map((job) => [job.id === running!.id, job.state])).toEqual([
        [true, 'active'],
        [false, 'created'],
      ]);
      await worker.complete('watch-stream', running!.id);
      const [next] = await worker.fetch('watch-stream');
      expect(next?.id).toBe(queued[1]!.id);
    } finally {
      await worker.stop({ graceful: false });
      await jobs.stop(0);
    }
  });

  it('the maintenance retries a dead worker’s job once its attempt outlived its expiry, and leaves a running one alone', async () => {
    const jobs = await startJobsWithoutWorkers(db.pool);
    const worker = new PgBoss({ connectionString: db.url, schedule: false, supervise: false });
    await worker.start();
    try {
      await jobs.watch('dead');
      await jobs.watch('alive');
      const taken = await worker.fetch<{ livestreamId: string }>('watch-stream', { batchSize: 2 });
      expect(taken.map((job) => job.data.livestreamId).sort()).toEqual(['alive', 'dead']);
      // the worker that took `dead` died an hour ago: its attempt is past the watch's expiry
      await db.pool.query(`update pgboss.job set started_on = now() - interval '1 hour' where data->>'livestreamId' = 'dead'`);
      await jobs.maintain();
      expect((await queuedJobs(db, 'watch-stream', 'dead')).map((job) => job.state)).toEqual(['retry']);
      expect((await queuedJobs(db, 'watch-stream', 'alive')).map((job) => job.state)).toEqual(['active']);
    } finally {
      await worker.stop({ graceful: false });
      await jobs.stop(0);
    }
  });
});
