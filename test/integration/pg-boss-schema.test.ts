import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGBOSS_EXPECTED } from '../../src/jobs/runtime/pg-boss-tables.js';
import { JOB_NAMES } from '../../src/jobs/catalogue.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startJobsWithoutWorkers } from '../support/jobs.js';

// The queue adapter reads and writes pg-boss's own tables (src/jobs/runtime/pg-boss-tables.ts),
// which are pg-boss's private business: this file fails when the installed pg-boss is not the one
// those queries were written for, or the schema it creates lacks what they use.
let db: TestDatabase;
let jobs: Jobs;
beforeAll(async () => {
  db = await createTestDatabase({ jobQueue: false });
  jobs = await startJobsWithoutWorkers(db.pool); // pg-boss creates its schema, Kura its queues and trigger
});
afterAll(async () => {
  await jobs?.stop(0);
  await db?.drop();
});

const pgBossPackage = (file: string) => JSON.parse(readFileSync(createRequire(import.meta.url).resolve(`pg-boss/${file}`), 'utf8'));

describe("pg-boss's private schema, as the queue adapter expects it", () => {
  it('is the pg-boss release, and the schema version, the adapter was written for', async () => {
    expect(pgBossPackage('package.json').version).toBe(PGBOSS_EXPECTED.release);
    expect(pgBossPackage('package.json').pgboss.schema).toBe(PGBOSS_EXPECTED.schemaVersion);
    expect((await db.pool.query('select version from pgboss.version')).rows).toEqual([{ version: PGBOSS_EXPECTED.schemaVersion }]);
  });

  it('has every column the adapter reads or writes, with the type it expects', async () => {
    for (const [table, columns] of Object.entries(PGBOSS_EXPECTED.columns)) {
      const { rows } = await db.pool.query(
        `select a.attname as column, format_type(a.atttypid, a.atttypmod) as type
         from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'pgboss' and c.relname = $1 and a.attnum > 0 and not a.attisdropped`,
        [table],
      );
      const found = Object.fromEntries(rows.map((r: { column: string; type: string }) => [r.column, r.type]));
      for (const [column, type] of Object.entries(columns)) expect({ table, column, type: found[column] }).toEqual({ table, column, type });
    }
  });

  it("orders the job states as the adapter's `state < 'active'` (waiting) relies on", async () => {
    const { rows } = await db.pool.query(`select enumlabel from pg_enum where enumtypid = 'pgboss.job_state'::regtype order by enumsortorder`);
    expect(rows.map((r: { enumlabel: string }) => r.enumlabel)).toEqual([...PGBOSS_EXPECTED.states]);
  });

  it('partitions the job table, so the notify trigger is cloned onto each partition, the one that holds the queues of Kura among them', async () => {
    const kind = await db.pool.query(`select relkind from pg_class where oid = 'pgboss.job'::regclass`);
    expect(kind.rows).toEqual([{ relkind: PGBOSS_EXPECTED.partitionedJobTable ? 'p' : 'r' }]);
    const partitions = await db.pool.query(
      `select c.relname as partition, exists (select from pg_trigger t where t.tgrelid = c.oid and t.tgname = 'kura_job_notify' and t.tgparentid <> 0) as cloned
       from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'pgboss.job'::regclass order by c.relname`,
    );
    expect(partitions.rows).toEqual([{ partition: 'job_common', cloned: true }]);
    const { rows } = await db.pool.query(`select distinct table_name as partition from pgboss.queue where name = any($1::text[])`, [JOB_NAMES]);
    expect(rows).toEqual([{ partition: 'job_common' }]);
  });
});
