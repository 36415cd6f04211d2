import type pg from 'pg';
import type { CaptureLease } from '../../core/capture/ports.js';
import { groupCommit } from './group-commit.js';

/**
 * The captures' leases as the workers renew them and the watchdogs look at them: the renewals of a
 * process's captures in one statement, and which leases are stale (their worker stopped renewing,
 * or is gone: its database session ended, worker-session.ts).
 */
export function createLeaseRenewals(pool: pg.Pool): { heartbeat: CaptureLease['heartbeat']; stale: CaptureLease['leases'] } {
  // leases beat together (keepLease aligns them to the clock): one statement for the process's captures;
  // the state clause is `lease_renewed` of CAPTURE_TRANSITIONS (core/capture/capture-lifecycle.ts)
  const heartbeats = groupCommit<{ livestreamId: string; workerId: string }, 'held' | 'lost' | 'stop'>(async (leases) => {
    const { rows } = await pool.query<{ livestream_id: string; worker_id: string; stop: boolean }>({
      name: 'captures-heartbeat',
      text: `update captures c set heartbeat_at = now() from unnest($1::text[], $2::text[]) as l(id, worker)
       where c.livestream_id = l.id and c.worker_id = l.worker and c.state in ('capturing', 'ended')
       returning c.livestream_id, c.worker_id, c.state = 'capturing' and c.stop_requested is not null as stop`,
      values: [leases.map((l) => l.livestreamId), leases.map((l) => l.workerId)],
    });
    const held = new Map(rows.map((r) => [`${r.worker_id} ${r.livestream_id}`, r.stop]));
    return leases.map((l) => {
      const stop = held.get(`${l.workerId} ${l.livestreamId}`);
      return stop === undefined ? 'lost' : stop ? 'stop' : 'held';
    });
  });

  return {
    heartbeat: (livestreamId, workerId) => heartbeats({ livestreamId, workerId }),

    async stale(staleAfterSeconds) {
      // the states that hold a lease (`lease_renewed` of CAPTURE_TRANSITIONS, core/capture/capture-lifecycle.ts),
      // stale at once when the worker holding it is gone (its session ended: worker-session.ts);
      // a failed record's capture is left as it is (its parts wait for an admin's retry)
      // and the chats of captures going on whose worker holds them but stopped renewing or is gone
      // (a released chat is a failed attempt, retried by its job)
      const { rows } = await pool.query<{ livestream_id: string; state: 'capturing' | 'ended' | 'chat'; stale_in_ms: number | null }>(
        `select c.livestream_id, c.state,
           case when c.worker_id in (select worker_id from gone_workers) then 0
             else extract(epoch from c.heartbeat_at + make_interval(secs => $1) - now())::float8 * 1000 end as stale_in_ms
         from captures c join livestreams l on l.id = c.livestream_id
         where c.state in ('capturing', 'ended') and l.status = 'live'
         union all
         select h.livestream_id, 'chat',
           case when h.worker_id in (select worker_id from gone_workers) then 0
             else extract(epoch from h.heartbeat_at + make_interval(secs => $1) - now())::float8 * 1000 end
         from chat_captures h join captures c on c.livestream_id = h.livestream_id
         where h.state = 'capturing' and h.worker_id is not null and c.state = 'capturing'`,
        [staleAfterSeconds],
      );
      const fresh = rows.flatMap((r) => (r.stale_in_ms !== null && r.stale_in_ms > 0 ? [r.stale_in_ms] : []));
      return {
        stale: rows.filter((r) => r.stale_in_ms !== null && r.stale_in_ms <= 0).map((r) => ({ livestreamId: r.livestream_id, state: r.state })),
        nextStaleInMs: fresh.length > 0 ? Math.min(...fresh) : null,
      };
    },
  };
}
