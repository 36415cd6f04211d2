// Decisions: docs/decisions/0013-logins-sessions-api-tokens.md
import type pg from 'pg';
import type { LoginAttempt, LoginAttemptRepo } from '../../core/accounts/ports.js';

export function createLoginAttemptRepo(pool: pg.Pool): LoginAttemptRepo {
  return {
    async save(idHash, attempt, ttlSeconds) {
      await pool.query(
        `insert into login_attempts (id_hash, provider, state, code_verifier, nonce, next_path, expires_at)
         values ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))`,
        [idHash, attempt.provider, attempt.state, attempt.codeVerifier, attempt.nonce, attempt.nextPath, ttlSeconds],
      );
    },

    async take(idHash) {
      // deleted as it is read: of two callbacks racing with one attempt, one gets it
      const { rows } = await pool.query(
        `delete from login_attempts where id_hash = $1
         returning provider, state, code_verifier, nonce, next_path, expires_at > now() as fresh`,
        [idHash],
      );
      const row = rows[0];
      if (row === undefined || !row.fresh) return null;
      return { provider: row.provider, state: row.state, codeVerifier: row.code_verifier, nonce: row.nonce, nextPath: row.next_path } satisfies LoginAttempt;
    },
  };
}
