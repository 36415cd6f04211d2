import type pg from 'pg';
import { LOCAL_PROVIDER, type Role, type User } from '../../core/accounts/account.js';
import type { UserRepo } from '../../core/accounts/ports.js';

interface UserRow {
  id: string;
  provider: string;
  provider_user_id: string;
  name: string;
  avatar_url: string | null;
  role: Role;
}

/** Columns every query returning users selects (`u` is the users table). */
export const USER_COLUMNS = 'u.id::text, u.provider, u.provider_user_id, u.name, u.avatar_url, u.role';

export function toUser(row: UserRow): User {
  return { id: row.id, provider: row.provider, providerUserId: row.provider_user_id, name: row.name, avatarUrl: row.avatar_url, role: row.role };
}

export function createUserRepo(pool: pg.Pool): UserRepo {
  return {
    async upsertIdentity(identity) {
      const { rows } = await pool.query<UserRow>(
        `insert into users as u (provider, provider_user_id, name, avatar_url, last_login_at) values ($1, $2, $3, $4, now())
         on conflict (provider, provider_user_id) do update
           set name = excluded.name, avatar_url = excluded.avatar_url, last_login_at = now(), updated_at = now()
         returning ${USER_COLUMNS}`,
        [identity.provider, identity.providerUserId, identity.name, identity.avatarUrl],
      );
      return toUser(rows[0] as UserRow);
    },

    async find(provider, providerUserId) {
      const { rows } = await pool.query<UserRow>(`select ${USER_COLUMNS} from users u where provider = $1 and provider_user_id = $2`, [
        provider,
        providerUserId,
      ]);
      return rows[0] === undefined ? null : toUser(rows[0]);
    },

    async findLocal(name) {
      const { rows } = await pool.query<UserRow & { password_hash: string }>(
        `select ${USER_COLUMNS}, u.password_hash from users u where provider = $1 and provider_user_id = $2`,
        [LOCAL_PROVIDER, name],
      );
      const row = rows[0];
      return row === undefined ? null : { user: toUser(row), passwordHash: row.password_hash };
    },

    saveLocal: (name, passwordHash, role) => saveLocalUser(pool, name, passwordHash, role),
  };
}

/** Creates a local account or replaces its password and role, on a pool or inside a transaction's client. */
export async function saveLocalUser(db: pg.Pool | pg.PoolClient, name: string, passwordHash: string, role: Role): Promise<User> {
  const { rows } = await db.query<UserRow>(
    `insert into users as u (provider, provider_user_id, name, password_hash, role) values ($1, $2, $2, $3, $4)
     on conflict (provider, provider_user_id) do update
       set password_hash = excluded.password_hash, role = excluded.role, updated_at = now()
     returning ${USER_COLUMNS}`,
    [LOCAL_PROVIDER, name, passwordHash, role],
  );
  return toUser(rows[0] as UserRow);
}
