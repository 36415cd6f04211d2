// Decisions: docs/decisions/0015-limits-count-first.md
import type pg from 'pg';
import type { RateLimiter, RateLimitState } from '../../core/rate-limit.js';

/** Fixed windows in PostgreSQL, so every api process counts against the same limit. */
export function createRateLimiter(pool: pg.Pool): RateLimiter {
  // the rows compare with the limit as if this request were counted; peek's `hits` + 1 is not counted yet
  const answer = (row: { hits: number; retry_after: number } | undefined, limit: number, counted: number): RateLimitState => ({
    allowed: row === undefined || row.hits <= limit,
    retryAfterSeconds: Math.max(1, Math.ceil(row?.retry_after ?? 0)),
    hits: row === undefined ? 0 : row.hits - counted,
  });
  return {
    async hit(bucket, key, rule) {
      const { rows } = await pool.query(
        `insert into rate_limit_windows as w (bucket, key, window_started_at, window_seconds, hits) values ($1, $2, now(), $3, 1)
         on conflict (bucket, key) do update set
           hits = case when w.window_started_at + make_interval(secs => $3) <= now() then 1 else w.hits + 1 end,
           window_started_at = case when w.window_started_at + make_interval(secs => $3) <= now() then now() else w.window_started_at end,
           window_seconds = $3
         returning hits, extract(epoch from w.window_started_at + make_interval(secs => $3) - now())::float8 as retry_after`,
        [bucket, key, rule.windowSeconds],
      );
      return answer(rows[0], rule.limit, 0);
    },

    async peek(bucket, key, rule) {
      const { rows } = await pool.query(
        `select hits + 1 as hits, extract(epoch from window_started_at + make_interval(secs => $3) - now())::float8 as retry_after
         from rate_limit_windows where bucket = $1 and key = $2 and window_started_at + make_interval(secs => $3) > now()`,
        [bucket, key, rule.windowSeconds],
      );
      return answer(rows[0], rule.limit, 1);
    },

    async refund(bucket, key) {
      await pool.query('update rate_limit_windows set hits = greatest(hits - 1, 0) where bucket = $1 and key = $2', [bucket, key]);
    },

    async reset(bucket, key) {
      await pool.query('delete from rate_limit_windows where bucket = $1 and key = $2', [bucket, key]);
    },
  };
}
