import type pg from 'pg';
import type { ExpiredPurger } from '../../core/accounts/ports.js';

/** Deletes expired sessions, login attempts and rate-limit windows in one statement. */
export function createExpiredPurger(pool: pg.Pool): ExpiredPurger {
  return {
    async purgeExpired() {
      const { rows } = await pool.query(
        `with s as (delete from sessions where expires_at <= now() returning 1),
              a as (delete from login_attempts where expires_at <= now() returning 1),
              w as (delete from rate_limit_windows where window_started_at + make_interval(secs => window_seconds) <= now() returning 1)
         select (select count(*) from s) + (select count(*) from a) + (select count(*) from w) as purged`,
      );
      return Number(rows[0].purged);
    },
  };
}
