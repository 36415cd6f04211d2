// Decisions: docs/decisions/0023-lifecycle-sweep.md
import type pg from 'pg';
import type { SweepAction, SweepRepo, Unattended } from '../../core/record-actions/ports.js';

/** The session lock a running sweep holds (each worker sweeps on its own timer; they take turns by skipping). */
const SWEEP_LOCK_KEY = 4_715_207_303;

/** What the lifecycle sweep reads, from the queue's indexes (upcoming and live records only). */
export function createSweepRepo(pool: pg.Pool): SweepRepo {
  const upcoming = async (comparison: '<' | '>=', cutoff: Date, limit: number) => {
    const { rows } = await pool.query<{ id: string }>(
      `select id from livestreams where status = 'upcoming' and scheduled_start_at ${comparison} $1
       order by scheduled_start_at, id limit $2`,
      [cutoff, limit],
    );
    return rows.map((r) => r.id);
  };
  return {
    async anythingToSweep() {
      // two partial indexes (livestreams_queue, livestreams_pending_takedowns): empty on an idle archive
      const { rows } = await pool.query<{ any: boolean }>({
        name: 'sweep-anything',
        text: `select exists (select 1 from livestreams where status in ('upcoming', 'live'))
                 or exists (select 1 from livestreams where takedown_requested_at is not null)
                 or exists (select 1 from captures where state = 'kept') as any`,
      });
      return rows[0]!.any;
    },

    upcomingScheduledBefore: (cutoff, limit) => upcoming('<', cutoff, limit),
    upcomingScheduledFrom: (cutoff, limit) => upcoming('>=', cutoff, limit),

    async liveWithoutLease(staleSeconds, limit) {
      const { rows } = await pool.query<{ id: string; state: Unattended['capture'] }>(
        `select l.id, c.state from livestreams l left join captures c on c.livestream_id = l.id
         where l.status = 'live' and (c.heartbeat_at is null or c.heartbeat_at < now() - make_interval(secs => $1))
         order by l.id limit $2`,
        [staleSeconds, limit],
      );
      return rows.map((r) => ({ id: r.id, capture: r.state }));
    },

    async keptCaptures(limit) {
      // the partial index captures_kept: empty unless a stream may go on (decision 0090)
      const { rows } = await pool.query<{ livestream_id: string }>(`select livestream_id from captures where state = 'kept' order by kept_until limit $1`, [
        limit,
      ]);
      return rows.map((r) => r.livestream_id);
    },

    async pendingTakedowns(olderThanSeconds, limit) {
      const { rows } = await pool.query<{ id: string }>(
        `select id from livestreams where takedown_requested_at < now() - make_interval(secs => $1)
         order by takedown_requested_at, id limit $2`,
        [olderThanSeconds, limit],
      );
      return rows.map((r) => r.id);
    },

    async countRepair(action) {
      await pool.query(
        `insert into lifecycle_repairs as r (action, count) values ($1, 1)
         on conflict (action) do update set count = r.count + 1`,
        [action],
      );
    },

    async alone(sweep) {
      // a session lock on a connection of its own, held while the sweep's queries use the pool:
      // released with the connection if this process dies mid-sweep
      const client = await pool.connect();
      try {
        const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [SWEEP_LOCK_KEY]);
        if (!rows[0]!.locked) return;
        try {
          await sweep();
        } finally {
          await client.query('select pg_advisory_unlock($1)', [SWEEP_LOCK_KEY]);
        }
      } finally {
        client.release();
      }
    },

    async repairCounts() {
      const { rows } = await pool.query<{ action: SweepAction; count: string }>('select action, count from lifecycle_repairs');
      return Object.fromEntries(rows.map((r) => [r.action, Number(r.count)]));
    },
  };
}
