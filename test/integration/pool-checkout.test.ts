import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPool } from '../../src/adapters/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// A checkout's five-second limit is armed only when the checkout has to wait: a timer armed and
// cleared still wakes the process when it would have fired, so each query of an idle server
// woke it again five seconds later.
let db: TestDatabase;
beforeAll(async () => void (db = await createTestDatabase({ migrated: false })));
afterAll(() => db.drop());
afterEach(() => void vi.restoreAllMocks());

/** The delays of the timers armed while `work` runs. */
async function timersArmedBy(work: () => Promise<unknown>): Promise<number[]> {
  const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
  await work();
  const delays = setTimeoutSpy.mock.calls.map((call) => Number(call[1]));
  setTimeoutSpy.mockRestore();
  return delays;
}

describe('a pool checkout', () => {
  it('with an idle connection there for it arms no timer of its limit', async () => {
    const pool = createPool({ connectionString: db.url, max: 2 });
    try {
      await pool.query('select 1'); // opens the connection
      expect(pool.idleCount).toBe(1);
      expect(await timersArmedBy(() => pool.query('select 1'))).not.toContain(5_000);
      const client = await pool.connect();
      client.release();
    } finally {
      await pool.end();
    }
  });

  it('that has to wait for a connection still gives up after five seconds', async () => {
    const pool = createPool({ connectionString: db.url, max: 1 });
    const held = await pool.connect();
    try {
      let waiting: Promise<unknown> = Promise.resolve();
      expect(await timersArmedBy(async () => void (waiting = pool.connect().catch((error: Error) => error)))).toContain(5_000);
      const outcome = await waiting;
      // pg's 'timeout exceeded when trying to connect', told as PostgreSQL out of reach (503)
      expect(outcome).toMatchObject({ code: 'database_unavailable' });
    } finally {
      held.release();
      await pool.end();
    }
  });
});
