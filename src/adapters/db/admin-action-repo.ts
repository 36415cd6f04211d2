// Decisions: docs/decisions/0024-admin-takedown-cancel-retry.md
import type pg from 'pg';
import type { AdminActionRepo } from '../../core/accounts/ports.js';
import { inTransaction } from './pool.js';

export function createAdminActionRepo(pool: pg.Pool): AdminActionRepo {
  return {
    takeDown(livestreamId, admin, reason) {
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query(
          `select jsonb_build_object('title', l.title, 'channelId', l.channel_id, 'channelName', l.channel_name,
             'sourceUrl', l.source_url, 'status', l.status, 'scheduledStart', l.scheduled_start_at,
             'submitters', array(select s.provider || '/' || s.user_id from livestream_submitters s where s.livestream_id = l.id order by s.id)) as record
           from livestreams l where l.id = $1 for update`,
          [livestreamId],
        );
        if (rows[0] === undefined) return false;
        await client.query(`insert into admin_actions (action, livestream_id, admin, reason, record) values ('takedown', $1, $2, $3, $4)`, [
          livestreamId,
          admin,
          reason,
          rows[0].record,
        ]);
        await client.query('delete from livestreams where id = $1', [livestreamId]);
        return true;
      });
    },

    async requestTakeDown(livestreamId, admin, reason) {
      await pool.query(
        `update livestreams set takedown_admin = $2, takedown_reason = $3, takedown_requested_at = now()
         where id = $1 and takedown_requested_at is null`,
        [livestreamId, admin, reason],
      );
    },

    async note(action, livestreamId, admin, reason) {
      await pool.query('insert into admin_actions (action, livestream_id, admin, reason) values ($1, $2, $3, $4)', [action, livestreamId, admin, reason]);
    },
  };
}
