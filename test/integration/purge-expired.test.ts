import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createExpiredPurger } from '../../src/adapters/db/expired-purger.js';
import { startEvery } from '../../src/jobs/runtime/every.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// Expired sessions, login attempts and rate-limit windows are removed from the real tables;
// live ones stay. Each test seeds and clears its own rows.
let db: TestDatabase;
let userId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  const { rows } = await db.pool.query(
    `insert into users (provider, provider_user_id, name, password_hash) values ('local', 'alice', 'alice', 'x') returning id`,
  );
  userId = Number(rows[0].id);
});
afterEach(async () => {
  vi.useRealTimers();
  await db.pool.query('delete from sessions; delete from login_attempts; delete from rate_limit_windows');
});
afterAll(() => db.drop());

/** A session named `name` that expires `seconds` from now (negative: expired). */
const session = (name: string, seconds: number) =>
  db.pool.query(`insert into sessions (token_hash, user_id, expires_at) values (convert_to($1, 'utf8'), $2, now() + make_interval(secs => $3))`, [
    name,
    userId,
    seconds,
  ]);
/** An OIDC login attempt named `name` that expires `seconds` from now. */
const loginAttempt = (name: string, seconds: number) =>
  db.pool.query(
    `insert into login_attempts (id_hash, provider, state, code_verifier, nonce, next_path, expires_at)
     values (convert_to($1, 'utf8'), 'oidc', 's', 'v', 'n', '/', now() + make_interval(secs => $2))`,
    [name, seconds],
  );
/** A rate-limit window for `key` of `windowSeconds` that began `agoSeconds` ago. */
const window = (key: string, agoSeconds: number, windowSeconds: number) =>
  db.pool.query(
    `insert into rate_limit_windows (bucket, key, window_started_at, window_seconds, hits) values ('login', $1, now() - make_interval(secs => $2), $3, 3)`,
    [key, agoSeconds, windowSeconds],
  );

/** What is left in the three tables, by name. */
async function remaining(): Promise<{ sessions: string[]; attempts: string[]; windows: string[] }> {
  const names = async (sql: string) => (await db.pool.query(sql)).rows.map((row) => row.name as string).sort();
  return {
    sessions: await names(`select convert_from(token_hash, 'utf8') as name from sessions`),
    attempts: await names(`select convert_from(id_hash, 'utf8') as name from login_attempts`),
    windows: await names(`select key as name from rate_limit_windows`),
  };
}

describe('purging expired rows', () => {
  it('deletes expired sessions, login attempts and finished rate-limit windows, and keeps the live ones', async () => {
    await session('expired-session', -1);
    await session('long-expired-session', -30 * 86_400);
    await session('live-session', 3600);
    await loginAttempt('expired-attempt', -1);
    await loginAttempt('live-attempt', 600);
    await window('finished-window', 120, 60);
    await window('current-window', 10, 60);

    const purger = createExpiredPurger(db.pool);
    expect(await purger.purgeExpired()).toBe(4);
    expect(await remaining()).toEqual({ sessions: ['live-session'], attempts: ['live-attempt'], windows: ['current-window'] });
    expect(await purger.purgeExpired()).toBe(0); // idempotent: every worker runs it
  });

  it('runs once when the worker starts and then every interval, until stopped', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }); // the shared wake-ups' timer only: queries and polls keep real time
    const purger = createExpiredPurger(db.pool);
    let runs = 0;
    const counted = { purgeExpired: () => ((runs += 1), purger.purgeExpired()) };
    const errors: Error[] = [];
    await session('expired-before-start', -1);
    await session('live-session', 3600);

    const stop = startEvery(counted.purgeExpired, { everySeconds: 300, onError: (error) => errors.push(error) });
    expect(runs).toBe(1);
    await expect.poll(async () => (await remaining()).sessions).toEqual(['live-session']);

    await loginAttempt('expired-meanwhile', -1);
    vi.advanceTimersByTime(299_000);
    expect(runs).toBe(1);
    vi.advanceTimersByTime(1_000);
    expect(runs).toBe(2);
    await expect.poll(async () => (await remaining()).attempts).toEqual([]);

    stop();
    vi.advanceTimersByTime(3_600_000);
    expect(runs).toBe(2);
    expect(errors).toEqual([]);
  });

  it('reports a failed purge to onError instead of throwing', async () => {
    const broken = { purgeExpired: () => Promise.reject(new Error('relation "sessions" does not exist')) };
    const errors: Error[] = [];
    const stop = startEvery(broken.purgeExpired, { everySeconds: 300, onError: (error) => errors.push(error) });
    await expect.poll(() => errors.map((error) => error.message)).toEqual(['relation "sessions" does not exist']);
    stop();
  });
});
