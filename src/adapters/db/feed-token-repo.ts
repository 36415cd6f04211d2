import type pg from 'pg';
import type { FeedTokenRepo } from '../../core/accounts/ports.js';
import { toUser, USER_COLUMNS } from './user-repo.js';

export function createFeedTokenRepo(pool: pg.Pool): FeedTokenRepo {
  return {
    async replace(userId, tokenHash) {
      const { rows } = await pool.query<{ created_at: Date }>(
        `insert into feed_tokens (user_id, token_hash) values ($1, $2)
         on conflict (user_id) do update set token_hash = excluded.token_hash, created_at = now(), last_used_at = null
         returning created_at`,
        [userId, tokenHash],
      );
      return (rows[0] as { created_at: Date }).created_at;
    },

    async find(userId) {
      const { rows } = await pool.query<{ created_at: Date; last_used_at: Date | null }>(
        'select created_at, last_used_at from feed_tokens where user_id = $1',
        [userId],
      );
      const row = rows[0];
      return row === undefined ? null : { createdAt: row.created_at, lastUsedAt: row.last_used_at };
    },

    async use(tokenHash) {
      // the last use is noted at most once a minute: a feed reader polling must not write on every poll
      const { rows } = await pool.query(
        `with found as (select user_id from feed_tokens where token_hash = $1),
         noted as (
           update feed_tokens set last_used_at = now()
           where token_hash = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')
         )
         select ${USER_COLUMNS} from found join users u on u.id = found.user_id`,
        [tokenHash],
      );
      return rows[0] === undefined ? null : toUser(rows[0]);
    },
  };
}
