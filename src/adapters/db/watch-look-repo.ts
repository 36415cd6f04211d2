// Decisions: docs/decisions/0073-a-queued-record-says-why-it-waits.md
import type pg from 'pg';
import type { WatchLook, WatchLooks } from '../../core/records/ports.js';

export function createWatchLookRepo(pool: pg.Pool): WatchLooks {
  return {
    async note(livestreamId, look) {
      // a record taken down meanwhile has no look to keep (the insert finds no row to refer to)
      await pool.query(
        `insert into watch_looks (livestream_id, looked_at, reason, next_look_at)
         select $1, $2, $3, $4 where exists (select 1 from livestreams where id = $1)
         on conflict (livestream_id) do update set looked_at = excluded.looked_at, reason = excluded.reason, next_look_at = excluded.next_look_at`,
        [livestreamId, look.lookedAt, look.reason, look.nextLookAt],
      );
    },

    async find(livestreamIds) {
      if (livestreamIds.length === 0) return new Map();
      const { rows } = await pool.query<{ livestream_id: string; looked_at: Date; reason: string | null; next_look_at: Date }>(
        'select livestream_id, looked_at, reason, next_look_at from watch_looks where livestream_id = any($1)',
        [livestreamIds],
      );
      return new Map(
        rows.map((row): [string, WatchLook] => [row.livestream_id, { lookedAt: row.looked_at, reason: row.reason, nextLookAt: row.next_look_at }]),
      );
    },
  };
}
