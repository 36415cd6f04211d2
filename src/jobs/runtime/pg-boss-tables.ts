// Decisions: docs/decisions/0029-jobs-woken-not-polled.md, docs/decisions/0123-pg-boss-12.md
/*
 * Everything Kura does to pg-boss's own tables, which are pg-boss's private business: with
 * pg-boss-10-jobs.ts (the one-time move of a pg-boss 10 schema's jobs), the one file that reads or
 * writes the `pgboss` schema with SQL of its own. What it relies on is written down below
 * (PGBOSS_EXPECTED), and test/integration/pg-boss-schema.test.ts checks it against the schema the
 * installed pg-boss creates: upgrading pg-boss means reading this file again.
 */
import type { JobState } from './job-queue.js';
import { PGBOSS_10_SCHEMA } from './pg-boss-10-jobs.js';

/** How pg-boss hands out SQL on its own pool (`boss.getDb()`). */
export interface PgBossDb {
  executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** What this file was written against: pg-boss's release, its schema version, and each column it reads or writes with its type. */
export const PGBOSS_EXPECTED = {
  release: '12.38.0',
  schemaVersion: 46,
  columns: {
    job: {
      name: 'text',
      state: 'pgboss.job_state',
      singleton_key: 'text',
      start_after: 'timestamp with time zone',
      started_on: 'timestamp with time zone',
      expire_seconds: 'integer',
    },
    schedule: { name: 'text' },
  },
  /** `state < 'active'` means waiting: the enum's order, as pg-boss declares it. */
  states: ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'] satisfies readonly JobState[],
  /** The job table is partitioned (by queue name; Kura's queues share its `job_common` partition): a trigger on it is cloned onto every partition, present or created later. */
  partitionedJobTable: true,
} as const;

/** What the notify trigger is called (the function and the trigger alike). */
const TRIGGER = 'kura_job_notify';
/** Whether the notify trigger is on pgboss.job (a partition's clone of it has a parent). */
const TRIGGER_INSTALLED = `exists (select 1 from pg_trigger where tgrelid = 'pgboss.job'::regclass and tgname = '${TRIGGER}' and tgparentid = 0)`;

/** The keys among `keys` with a job of queue `name` in one of `states` (every Kura job is sent with its key as pg-boss's singleton key). */
export async function keysInStates(db: PgBossDb, name: string, states: readonly JobState[], keys: readonly string[]): Promise<Set<string>> {
  const { rows } = (await db.executeSql(
    `select distinct singleton_key as key from pgboss.job
     where name = $1 and state = any($2::pgboss.job_state[]) and singleton_key = any($3::text[])`,
    [name, states, keys],
  )) as { rows: Array<{ key: string }> };
  return new Set(rows.map((r) => r.key));
}

/** Brings the job of `key` waiting in queue `name` forward to `at` (now when null), never back; false when none waits. */
export async function bringForward(db: PgBossDb, name: string, key: string, at: Date | null): Promise<boolean> {
  const { rows } = await db.executeSql(
    `update pgboss.job set start_after = least(start_after, coalesce($3::timestamptz, now()))
     where name = $1 and singleton_key = $2 and state = 'created' returning id`,
    [name, key, at],
  );
  return rows.length > 0;
}

/** Milliseconds until the earliest waiting job of each queue is due (≤ 0: due now); a queue with none waiting is left out. */
export async function dueIn(db: PgBossDb, names: readonly string[]): Promise<Map<string, number>> {
  const { rows } = (await db.executeSql(
    `select name, extract(epoch from min(start_after) - now())::float8 * 1000 as ms from pgboss.job
     where name = any($1::text[]) and state < 'active' group by name`,
    [names],
  )) as { rows: Array<{ name: string; ms: number }> };
  return new Map(rows.map((r) => [r.name, r.ms]));
}

/** The jobs of each queue of `names` that wait (created or to be retried), 0 for a queue with none. */
export async function waitingIn(db: PgBossDb, names: readonly string[]): Promise<Map<string, number>> {
  const { rows } = (await db.executeSql(`select name, count(*)::int as n from pgboss.job where name = any($1::text[]) and state < 'active' group by name`, [
    names,
  ])) as { rows: Array<{ name: string; n: number }> };
  const counts = new Map(rows.map((r) => [r.name, r.n]));
  return new Map(names.map((name) => [name, counts.get(name) ?? 0]));
}

/** Whether an attempt of a queue of `names` outlived its expiry (a dead worker's): pg-boss's expiry has something to do. */
export async function anyExpired(db: PgBossDb, names: readonly string[]): Promise<boolean> {
  const { rows } = await db.executeSql(
    `select exists (select from pgboss.job where name = any($1::text[]) and state = 'active'
       and started_on + expire_seconds * interval '1 second' < now()) as expired`,
    [names],
  );
  return (rows[0] as { expired: boolean }).expired === true;
}

/** Forgets the schedules pg-boss's own clock kept for `names` (Kura up to 0.6): no process runs that clock any more. */
export async function forgetCronSchedules(db: PgBossDb, names: readonly string[]): Promise<void> {
  await db.executeSql('delete from pgboss.schedule where name = any($1::text[])', [names]);
}

/**
 * Deletes the queues of `names` (jobs an earlier release ran), with their jobs, when they exist;
 * workers starting together take turns on a lock (pg-boss's own delete fails on a queue deleted
 * meanwhile).
 */
export async function deleteRetiredQueues(db: PgBossDb, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const found = await db.executeSql('select exists (select from pgboss.queue where name = any($1::text[])) as found', [names]);
  if ((found.rows[0] as { found: boolean }).found !== true) return;
  // the statement below has no parameters (the simple protocol runs several): names are Kura's own, checked
  if (names.some((name) => !/^[a-z-]+$/.test(name))) throw new Error(`not queue names: ${names.join(', ')}`);
  const list = names.map((name) => `'${name}'`).join(', ');
  // one simple query: one transaction, the lock held to its end; the jobs first (their partition
  // refers to the queue's row), then the queue with its partition
  await db.executeSql(
    `select pg_advisory_xact_lock(hashtext('kura_retired_queues'));
     delete from pgboss.job where name in (${list});
     select pgboss.delete_queue(name) from pgboss.queue where name in (${list});`,
    [],
  );
}

/**
 * Whether pg-boss's schema (pg-boss 12's: its `job_common` table is new since 11), every queue of
 * `names` and the notify trigger exist, and no pg-boss 10 jobs wait to be moved (what a server's start makes).
 */
export async function isInPlace(db: PgBossDb, names: readonly string[]): Promise<boolean> {
  const schema = await db.executeSql(
    `select to_regclass('pgboss.queue') is not null and to_regclass('pgboss.job_common') is not null
       and to_regnamespace('${PGBOSS_10_SCHEMA}') is null as made`,
    [],
  );
  if ((schema.rows[0] as { made: boolean }).made !== true) return false;
  const { rows } = await db.executeSql(
    `select (select count(*) from pgboss.queue where name = any($1::text[])) = cardinality($1::text[])
        and ${TRIGGER_INSTALLED} as made`,
    [names],
  );
  return (rows[0] as { made: boolean }).made === true;
}

/**
 * A trigger on pgboss.job notifies `channel` of every job that waits to run: sent by any process
 * (api, CLI, a worker's clock), failed into a retry, or brought forward. The payload is the queue
 * and how long until the job is due (`<queue> <ms>`; ≤ 0: now), so a worker can sleep until then.
 * It lives with pg-boss's schema rather than in a migration, as that schema is pg-boss's to create
 * (after Kura's migrations, on a new database); created once, under a lock, by the first start.
 * Run it after the queues exist: creating it locks every partition, which a queue created at
 * once would deadlock with.
 */
export async function installJobNotify(db: PgBossDb, channel: string): Promise<void> {
  if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  const found = await db.executeSql(`select ${TRIGGER_INSTALLED} as made`, []);
  if ((found.rows[0] as { made: boolean }).made) return;
  // one simple query: one transaction, so the lock is held to the end and an error leaves nothing behind
  await db.executeSql(
    `
    select pg_advisory_xact_lock(hashtext('${TRIGGER}'));
    create or replace function ${TRIGGER}() returns trigger language plpgsql as $$
    begin
      perform pg_notify('${channel}', NEW.name || ' ' || floor(extract(epoch from NEW.start_after - now()) * 1000)::bigint);
      return null;
    end $$;
    create or replace trigger ${TRIGGER} after insert or update of start_after on pgboss.job
      for each row when (NEW.state < 'active') execute function ${TRIGGER}();`,
    [], // no parameters: the simple protocol, which runs several statements
  );
}
