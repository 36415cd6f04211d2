import type pg from 'pg';
import type { ApiTokenInfo, ApiTokenRepo } from '../../core/accounts/ports.js';
import { insertBelowCap } from './pool.js';
import { toUser, USER_COLUMNS } from './user-repo.js';

interface TokenRow {
  id: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

const TOKEN_COLUMNS = 'id::text, name, created_at, last_used_at';

function toInfo(row: TokenRow): ApiTokenInfo {
  return { id: row.id, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at };
}

export function createApiTokenRepo(pool: pg.Pool): ApiTokenRepo {
  return {
    create(userId, name, tokenHash, perUser) {
      const cap = {
        lock: `kura_api_tokens_of:${userId}`,
        count: 'select count(*)::int as n from api_tokens where user_id = $1',
        params: [userId],
        limit: perUser,
      };
      return insertBelowCap(pool, cap, async (client) => {
        const { rows } = await client.query<TokenRow>(`insert into api_tokens (user_id, name, token_hash) values ($1, $2, $3) returning ${TOKEN_COLUMNS}`, [
          userId,
          name,
          tokenHash,
        ]);
        return toInfo(rows[0] as TokenRow);
      });
    },

    async list(userId) {
      const { rows } = await pool.query<TokenRow>(`select ${TOKEN_COLUMNS} from api_tokens where user_id = $1 order by id`, [userId]);
      return rows.map(toInfo);
    },

    async delete(userId, id) {
      if (!/^\d{1,18}$/.test(id)) return false;
      const result = await pool.query('delete from api_tokens where user_id = $1 and id = $2', [userId, id]);
      return result.rowCount === 1;
    },

    async use(tokenHash) {
      const { rows } = await pool.query(
        `with used as (update api_tokens set last_used_at = now() where token_hash = $1 returning user_id)
         select ${USER_COLUMNS} from used join users u on u.id = used.user_id`,
        [tokenHash],
      );
      return rows[0] === undefined ? null : toUser(rows[0]);
    },
  };
}
