// Decisions: docs/decisions/0123-pg-boss-12.md
/*
 * The one-time move of an instance's jobs from pg-boss 10's schema to pg-boss 12's. Kura up to 0.7
 * ran pg-boss 10 (schema versions 21 to 24); pg-boss 11 rewrote the schema (version 25) and ships no
 * migration from 10 (its release notes: move the jobs with INSERT … SELECT), and pg-boss 12 migrates
 * only from 25 on. So the queue's setup, one process at a time, sets pg-boss 10's schema aside
 * (renamed), lets pg-boss 12 create its own, and moves every unfinished job into it with its id,
 * payload, key, due time and attempts; the move and the old schema's drop are one transaction.
 * A start cut short anywhere leaves each job in one of the two schemas, and the next start carries on.
 */
import type { PgBossDb } from './pg-boss-tables.js';

/** Where pg-boss 10's schema waits between being set aside and its jobs being moved. */
export const PGBOSS_10_SCHEMA = 'pgboss_v10';

/** pg-boss 10's schema versions: 10.0.0 made 21, 10.4.2 left 24; pg-boss 11 starts at 25. */
const PGBOSS_10_VERSIONS = { first: 21, last: 24 };

/**
 * Renames the `pgboss` schema to PGBOSS_10_SCHEMA when pg-boss 10 made it (no `job_common` table,
 * a version of pg-boss 10's): true when it did. Run before pg-boss 12 starts, under the setup lock,
 * with every process of the earlier release stopped. Any other schema is left to pg-boss 12.
 */
export async function setPgBoss10Aside(db: PgBossDb): Promise<boolean> {
  const found = await db.executeSql(`select to_regclass('pgboss.version') is not null and to_regclass('pgboss.job_common') is null as old`, []);
  if ((found.rows[0] as { old: boolean }).old !== true) return false;
  const { rows } = await db.executeSql('select version from pgboss.version', []);
  const version = Number((rows[0] as { version: number | string } | undefined)?.version);
  if (!(version >= PGBOSS_10_VERSIONS.first && version <= PGBOSS_10_VERSIONS.last)) return false;
  await db.executeSql(`alter schema pgboss rename to ${PGBOSS_10_SCHEMA}`, []);
  return true;
}

/**
 * Moves the jobs of the set-aside pg-boss 10 schema that had not ended (waiting, to be retried, or
 * running when its worker stopped: that attempt is retried, as pg-boss's expiry would have) into
 * pg-boss 12's queues of the same names, then drops that schema, in one transaction: a failure
 * leaves both as they were. The finished jobs (and pg-boss 10's archive and schedules) go with it.
 * Run after the queues exist. Resolves with how many moved, or null when no such schema waits.
 */
export async function movePgBoss10Jobs(db: PgBossDb): Promise<number | null> {
  const found = await db.executeSql(`select to_regnamespace('${PGBOSS_10_SCHEMA}') is not null as waiting`, []);
  if ((found.rows[0] as { waiting: boolean }).waiting !== true) return null;
  // one simple query (no parameters): one transaction. A job keeps its id, due time and attempts
  // made (pg-boss 12 counts an attempt at each fetch of a job started before, as pg-boss 10 did at
  // each fetch of a retry); pg-boss 10 kept the expiry as an interval, pg-boss 12 in seconds; the
  // policy is the queue's. Jobs of queues this release has not are left behind.
  const results = (await db.executeSql(
    `with moved as (
       insert into pgboss.job (id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff,
         expire_seconds, deletion_seconds, singleton_key, singleton_on, start_after, created_on, started_on, keep_until, policy)
       select j.id, j.name, j.priority, j.data,
         (case when j.state = 'active' then 'retry' else j.state::text end)::pgboss.job_state,
         j.retry_limit, j.retry_count, j.retry_delay, j.retry_backoff,
         greatest(1, ceil(extract(epoch from j.expire_in)))::int, q.deletion_seconds,
         j.singleton_key, j.singleton_on,
         case when j.state = 'active' then now() else j.start_after end,
         j.created_on, j.started_on, j.keep_until, q.policy
       from ${PGBOSS_10_SCHEMA}.job j join pgboss.queue q on q.name = j.name
       where j.state::text in ('created', 'retry', 'active')
       returning 1
     )
     select count(*)::int as moved from moved;
     drop schema ${PGBOSS_10_SCHEMA} cascade;`,
    [],
  )) as unknown as Array<{ rows: Array<{ moved?: number }> }>;
  return results[0]?.rows[0]?.moved ?? 0;
}
