import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Jobs } from '../../src/jobs/jobs.js';
import { setPgBoss10Aside } from '../../src/jobs/runtime/pg-boss-10-jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startJobsWithoutWorkers } from '../support/jobs.js';
import { pgBossJobs, seedPgBoss10Jobs, type PgBossJobRow } from '../support/release-0.6.0.js';

// The move of a pg-boss 10 schema's jobs (decision 0123) when the start is not the one quiet start
// the upgrade test makes: processes starting together, and a start cut short after the set-aside.
let db: TestDatabase;
let started: Jobs[];
let pgBoss10: PgBossJobRow[];

beforeEach(async () => {
  db = await createTestDatabase({ jobQueue: false });
  pgBoss10 = await seedPgBoss10Jobs(db.url, db.pool);
  started = [];
});
afterEach(async () => {
  await Promise.all(started.map((jobs) => jobs.stop(0)));
  await db.drop();
});

/** What the move should leave: the unfinished jobs of the queues Kura has, the running one to be retried. */
const expectedMoves = () =>
  pgBoss10
    .filter((job) => job.name !== 'sweep-lifecycle' && ['created', 'retry', 'active'].includes(job.state))
    .map((job) => (job.state === 'active' ? { ...job, state: 'retry', startAfter: expect.any(Date) } : job));

const pgBoss10Left = async () => (await db.pool.query(`select to_regnamespace('pgboss_v10') is not null as left`)).rows[0].left;

describe("a pg-boss 10 schema's jobs", () => {
  it('are moved once when three processes start together on it: one moves them while the others wait', async () => {
    started = await Promise.all([0, 1, 2].map(() => startJobsWithoutWorkers(db.pool)));
    expect(await pgBossJobs(db.pool, 'pgboss')).toEqual(expectedMoves());
    expect(await pgBoss10Left()).toBe(false);
  });

  it('are moved by the next start when a start stopped after setting the schema aside', async () => {
    expect(await setPgBoss10Aside({ executeSql: (text, values) => db.pool.query(text, values) })).toBe(true);
    expect(await pgBoss10Left()).toBe(true);
    started = [await startJobsWithoutWorkers(db.pool)];
    expect(await pgBossJobs(db.pool, 'pgboss')).toEqual(expectedMoves());
    expect(await pgBoss10Left()).toBe(false);
  });
});
