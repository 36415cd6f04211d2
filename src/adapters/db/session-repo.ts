import type pg from 'pg';
import type { SessionRepo } from '../../core/accounts/ports.js';
import { toUser, USER_COLUMNS } from './user-repo.js';

export function createSessionRepo(pool: pg.Pool): SessionRepo {
  return {
    async create(tokenHash, userId, ttlSeconds) {
      await pool.query(`insert into sessions (token_hash, user_id, expires_at) values ($1, $2, now() + make_interval(secs => $3))`, [
        tokenHash,
        userId,
        ttlSeconds,
      ]);
    },

    async use(tokenHash, ttlSeconds, refreshSeconds) {
      // one statement: the expiry slides only when it was last pushed over `refreshSeconds` ago
      const { rows } = await pool.query(
        `with found as (
           select token_hash, last_used_at < now() - make_interval(secs => $3) as stale
           from sessions where token_hash = $1 and expires_at > now()
         ), slid as (
           update sessions s set last_used_at = now(), expires_at = now() + make_interval(secs => $2)
           from found where s.token_hash = found.token_hash and found.stale
           returning s.token_hash
         )
         select ${USER_COLUMNS}, exists (select 1 from slid) as refreshed
         from found join sessions s on s.token_hash = found.token_hash join users u on u.id = s.user_id`,
        [tokenHash, ttlSeconds, refreshSeconds],
      );
      const row = rows[0];
      return row === undefined ? null : { user: toUser(row), refreshed: row.refreshed as boolean };
    },

    async delete(tokenHash) {
      await pool.query('delete from sessions where token_hash = $1', [tokenHash]);
    },
  };
}
