import { afterEach, describe, expect, it } from 'vitest';
import { offerSetupToken } from '../../src/core/accounts/offer-setup-token.js';
import { addUser, SAME_ORIGIN, sessionCookieOf } from '../support/accounts.js';
import { startTestApp, type TestApp } from '../support/app.js';

// The first-run setup against a real PostgreSQL, one fresh instance per test; the login limit is 3 failures.
let kura: TestApp;
afterEach(() => kura.close());

const start = async (env: Record<string, string> = {}) => {
  kura = await startTestApp({}, { env: { KURA_LOGIN_RATE_LIMIT: '3', ...env } });
  return kura;
};
const offer = () => offerSetupToken(kura.accounts, { admins: kura.accounts.settings.admins });
const setup = (payload: object, headers: Record<string, string> = SAME_ORIGIN) =>
  kura.app.inject({ method: 'POST', url: '/auth/setup', remoteAddress: '203.0.113.7', headers, payload });
const setupRequired = async () => (await kura.app.inject({ url: '/auth/providers' })).json().setupRequired;
const admins = async () => (await kura.db.pool.query(`select provider_user_id from users where role = 'admin' order by 1`)).rows.map((r) => r.provider_user_id);

describe('first-run setup', () => {
  it("takes any api process's token once, makes the admin, logs it in and forgets every token", async () => {
    await start();
    const [first, second] = [await offer(), await offer()]; // two api processes started
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(await setupRequired()).toBe(true);
    const { rows } = await kura.db.pool.query(`select encode(token_hash, 'hex') as hash from setup_tokens`);
    expect(rows).toHaveLength(2);
    expect(rows.some((r) => r.hash.includes(Buffer.from(first as string).toString('hex')))).toBe(false);

    const made = await setup({ token: second, username: 'boss', password: 'correct horse' });
    expect(made.statusCode).toBe(200);
    expect(made.json()).toEqual({ id: 'boss', name: 'boss', avatar: null, provider: 'local', role: 'admin' });
    const me = await kura.app.inject({ url: '/api/user', headers: { cookie: sessionCookieOf(made) } });
    expect(me.json()).toMatchObject({ id: 'boss', role: 'admin' });
    expect((await kura.db.pool.query('select count(*)::int as n from setup_tokens')).rows[0].n).toBe(0);
    expect(await setupRequired()).toBe(false);

    const again = await setup({ token: first, username: 'eve', password: 'correct horse' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'setup_done', status: 409 });
    expect(await admins()).toEqual(['boss']);
    expect(await offer()).toBeNull(); // the next start offers no token
  });

  it('refuses a wrong token (403 invalid_setup_token), then the address for a while (429), with no account made', async () => {
    await start();
    await offer();
    for (let i = 0; i < 3; i++) {
      const wrong = await setup({ token: `guess-${i}`, username: 'eve', password: 'correct horse' });
      expect(wrong.statusCode).toBe(403);
      expect(wrong.json()).toMatchObject({ code: 'invalid_setup_token' });
      expect(wrong.cookies).toEqual([]);
    }
    const limited = await setup({ token: 'guess-4', username: 'eve', password: 'correct horse' });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(await admins()).toEqual([]);
    expect(await setupRequired()).toBe(true);
  });

  it('counts the right token before checking it, then gives the count back: only wrong tokens stay counted', async () => {
    await start();
    const token = await offer();
    for (let i = 0; i < 2; i++) expect((await setup({ token: `guess-${i}`, username: 'eve', password: 'correct horse' })).statusCode).toBe(403);
    expect((await setup({ token, username: 'boss', password: 'correct horse' })).statusCode).toBe(200);
    const { rows } = await kura.db.pool.query(`select key, hits from rate_limit_windows where bucket = 'setup-ip'`);
    expect(rows).toEqual([{ key: '203.0.113.7', hits: 2 }]);
  });

  it('makes one admin when two setups race with two tokens', async () => {
    await start();
    const [a, b] = [await offer(), await offer()];
    const answers = await Promise.all([
      setup({ token: a, username: 'first', password: 'correct horse' }),
      setup({ token: b, username: 'second', password: 'correct horse' }),
    ]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(await admins()).toHaveLength(1);
  });

  it('refuses a cross-site form, a short password, and a setup once `kura user add --admin` made an admin', async () => {
    await start();
    const token = await offer();
    const foreign = await setup({ token, username: 'boss', password: 'correct horse' }, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ code: 'cross_origin_refused' });
    const short = await setup({ token, username: 'boss', password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toMatchObject({ code: 'invalid_parameter' });

    await addUser(kura, 'operator', { admin: true });
    expect(await setupRequired()).toBe(false);
    const late = await setup({ token, username: 'boss', password: 'correct horse' });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ code: 'setup_done' });
  });

  it('is not offered when KURA_ADMINS names the admins', async () => {
    await start({ KURA_ADMINS: 'github/42' });
    expect(await setupRequired()).toBe(false);
    expect(await offer()).toBeNull();
  });
});
