// Decisions: docs/decisions/0111-follows-shared-evenly.md
import type pg from 'pg';
import type { FollowClaims } from '../../core/follows/ports.js';
import { FOLLOW_COLUMNS, signalsJson, toFollow, type FollowRow } from './follow-row.js';

/** The follows each worker holds, by lease (migration 0028). */
export function createFollowClaims(pool: pg.Pool): FollowClaims {
  return {
    async claim(worker, now, leaseSeconds, limit) {
      // one row with a null id when nothing was claimed; the leases' end as they were before the
      // update (the statement's snapshot): those it took had ended, and are left out by `> $2`
      const { rows } = await pool.query<FollowRow & { next_lease_end: Date | null }>(
        `with claimed as (
           update follows set claimed_by = $1, claim_expires_at = $2::timestamptz + make_interval(secs => $3)
            where id in (select id from follows where not paused and (claimed_by is null or claim_expires_at <= $2)
                          order by next_check_at limit $4 for update skip locked)
            returning ${FOLLOW_COLUMNS})
         select claimed.*, n.next_lease_end from claimed
           right join (select min(claim_expires_at) as next_lease_end from follows
                        where not paused and claimed_by <> $1 and claim_expires_at > $2) n on true`,
        [worker, now, leaseSeconds, Math.max(0, limit)],
      );
      return { follows: rows.filter((row) => row.id !== null).map(toFollow), nextLeaseEnd: rows[0]?.next_lease_end ?? null };
    },

    async renew(worker, ids, until) {
      if (ids.length === 0) return [];
      const { rows } = await pool.query<{ id: string }>(
        'update follows set claim_expires_at = $3 where claimed_by = $1 and id = any($2::text[]) returning id',
        [worker, ids, until],
      );
      return rows.map((row) => row.id);
    },

    async release(worker, ids) {
      await pool.query('update follows set claimed_by = null, claim_expires_at = null where claimed_by = $1 and ($2::text[] is null or id = any($2::text[]))', [
        worker,
        ids,
      ]);
    },

    async sharing() {
      // a worker is alive while the session it noted is (migration 0032's view of those gone)
      const { rows } = await pool.query<{ workers: number; follows: number }>(
        `select greatest(1, (select count(*) from worker_sessions) - (select count(*) from gone_workers))::int as workers,
                (select count(*) from follows where not paused)::int as follows`,
      );
      return rows[0] as { workers: number; follows: number };
    },

    async recordLooks(worker, looks) {
      if (looks.length === 0) return;
      // a follow brought forward meanwhile (a resume: its next_check_at before what the worker knew) keeps it
      await pool.query(
        `update follows f set last_checked_at = l.checked_at, signals = l.signals::jsonb, next_check_at = l.next_check_at
           from unnest($2::text[], $3::timestamptz[], $4::text[], $5::timestamptz[], $6::timestamptz[])
                  as l(id, checked_at, signals, next_check_at, due_before)
          where f.id = l.id and f.claimed_by = $1 and f.next_check_at >= l.due_before`,
        [
          worker,
          looks.map((l) => l.id),
          looks.map((l) => l.checkedAt),
          looks.map((l) => signalsJson(l.signals)),
          looks.map((l) => l.nextCheckAt),
          looks.map((l) => l.dueBefore),
        ],
      );
    },
  };
}
