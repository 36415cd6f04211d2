import type pg from 'pg';

/**
 * Waits until the worker has drained the search outbox into the index (a bench may poll), then
 * vacuums and checkpoints so the measurement sees the steady state, not the bulk load's upkeep.
 * Resolves with the seconds the drain took.
 */
export async function searchIndexDrained(pool: pg.Pool): Promise<number> {
  const started = Date.now();
  for (;;) {
    const { rows } = await pool.query<{ n: number }>('select count(*)::integer as n from search_outbox');
    if (rows[0]?.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const seconds = (Date.now() - started) / 1000;
  await pool.query('vacuum analyze');
  await pool.query('checkpoint');
  return seconds;
}
