// Decisions: docs/decisions/0018-first-admin-setup-token.md
import type pg from 'pg';
import type { SetupRepo } from '../../core/accounts/ports.js';
import { saveLocalUser } from './user-repo.js';

const HAS_ADMIN = `select exists (select 1 from users where role = 'admin') as found`;

export function createSetupRepo(pool: pg.Pool): SetupRepo {
  return {
    async hasAdmin() {
      const { rows } = await pool.query<{ found: boolean }>(HAS_ADMIN);
      return rows[0]?.found === true;
    },

    async addToken(tokenHash) {
      await pool.query('insert into setup_tokens (token_hash) values ($1)', [tokenHash]);
    },

    async clearTokens() {
      await pool.query('delete from setup_tokens');
    },

    async createFirstAdmin(tokenHash, name, passwordHash) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        // two setups at once: the second waits here, then finds the admin the first made
        await client.query('lock table setup_tokens in share row exclusive mode');
        const admin = await client.query<{ found: boolean }>(HAS_ADMIN);
        if (admin.rows[0]?.found === true) {
          await client.query('rollback');
          return { outcome: 'setup_done' };
        }
        const token = await client.query('select 1 from setup_tokens where token_hash = $1', [tokenHash]);
        if (token.rowCount === 0) {
          await client.query('rollback');
          return { outcome: 'wrong_token' };
        }
        const user = await saveLocalUser(client, name, passwordHash, 'admin');
        await client.query('delete from setup_tokens');
        await client.query('commit');
        return { outcome: 'created', user };
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
  };
}
