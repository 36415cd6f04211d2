import { createHash } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN, sessionCookieOf } from '../support/accounts.js';
import { runKura } from '../support/cli.js';

// Local accounts, sessions and logout against a real PostgreSQL; the login limit is 3 failures.
let kura: TestApp;
beforeAll(async () => {
  kura = await startTestApp({}, { env: { KURA_LOGIN_RATE_LIMIT: '3', KURA_ADMINS: 'local/root' } });
  await addUser(kura, 'alice');
  await addUser(kura, 'root');
  await addUser(kura, 'mallory');
});
afterAll(() => kura.close());

// `from` is the client's address as the socket shows it (KURA_TRUST_PROXY is off here)
const login = (payload: object, headers: Record<string, string> = SAME_ORIGIN, from = '203.0.113.9') =>
  kura.app.inject({ method: 'POST', url: '/auth/local', remoteAddress: from, headers, payload });
const me = (cookie: string) => kura.app.inject({ url: '/api/user', headers: { cookie } });

describe('local login', () => {
  it('opens a session whose cookie is HttpOnly, SameSite=Lax, 30 days, and answers who logged in', async () => {
    const response = await login({ username: 'alice', password: 'alice-password' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: 'alice', name: 'alice', avatar: null, provider: 'local', role: 'user' });
    const cookie = response.cookies.find((c) => c.name === 'kura_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 30 * 86_400 });
    expect(cookie?.secure).toBeFalsy(); // the test instance is http://
    expect(cookie?.value).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 random bits
    const user = await me(sessionCookieOf(response));
    expect(user.json()).toEqual({ id: 'alice', name: 'alice', avatar: null, provider: 'local', role: 'user' });
  });

  it('answers who is logged in without a 401 for nobody when asked with optional=true', async () => {
    const anonymous = await kura.app.inject({ url: '/api/user?optional=true' });
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.json()).toBeNull();
    // without it, or with anything else, nobody is still 401 (before the query is judged)
    for (const url of ['/api/user', '/api/user?optional=false', '/api/user?optional=maybe']) {
      expect((await kura.app.inject({ url })).json(), url).toMatchObject({ status: 401, code: 'not_logged_in' });
    }
    const cookie = await logIn(kura, 'alice');
    const known = await kura.app.inject({ url: '/api/user?optional=true', headers: { cookie } });
    expect(known.json()).toEqual({ id: 'alice', name: 'alice', avatar: null, provider: 'local', role: 'user' });
  });

  it('stores only a hash of the session token', async () => {
    const cookie = await logIn(kura, 'alice');
    const token = cookie.split('=')[1] as string;
    const { rows } = await kura.db.pool.query(`select encode(token_hash, 'hex') as hash from sessions`);
    expect(rows.map((r) => r.hash)).toContain(createHash('sha256').update(token, 'utf8').digest('hex'));
    const columns = await kura.db.pool.query(`select column_name from information_schema.columns where table_name = 'sessions'`);
    for (const { column_name } of columns.rows) {
      const { rowCount } = await kura.db.pool.query(`select 1 from sessions where ${column_name}::text like '%' || $1 || '%'`, [token]);
      expect(rowCount, `sessions.${column_name} holds the token`).toBe(0);
    }
  });

  it('takes an HTML form and redirects (303) only within the instance', async () => {
    const form = (next: string) =>
      kura.app.inject({
        method: 'POST',
        url: '/auth/local',
        headers: { ...SAME_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `username=alice&password=alice-password&next=${encodeURIComponent(next)}`,
      });
    const inside = await form('/queue?x=1');
    expect(inside.statusCode).toBe(303);
    expect(inside.headers.location).toBe('http://kura.test/queue?x=1');
    for (const next of ['https://evil.example/', '//evil.example/', '/\\evil.example', 'javascript:alert(1)']) {
      expect((await form(next)).headers.location, next).toBe('http://kura.test/');
    }
  });

  it('refuses a wrong password and an unknown user alike (401 invalid_credentials)', async () => {
    const wrong = await login({ username: 'root', password: 'not-the-password' });
    const unknown = await login({ username: 'nobody', password: 'whatever1' });
    for (const response of [wrong, unknown]) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 'invalid_credentials', status: 401 });
      expect(response.cookies).toEqual([]);
    }
  });

  it('refuses the address that failed an account 3 times with 429 and Retry-After, even with the right password', async () => {
    for (let i = 0; i < 3; i++) expect((await login({ username: 'mallory', password: `wrong-${i}-xx` }, SAME_ORIGIN, '192.0.2.50')).statusCode).toBe(401);
    const limited = await login({ username: 'mallory', password: 'mallory-password' }, SAME_ORIGIN, '192.0.2.50');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'too_many_requests' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(800); // a 15-minute window
    // another account from another address is not held back
    expect((await login({ username: 'alice', password: 'alice-password' }, SAME_ORIGIN, '198.51.100.1')).statusCode).toBe(200);
  });

  it('refuses every account from an address after 3 failures from it', async () => {
    for (const name of ['a1', 'a2', 'a3']) expect((await login({ username: name, password: 'guessing-1' }, SAME_ORIGIN, '192.0.2.77')).statusCode).toBe(401);
    expect((await login({ username: 'alice', password: 'alice-password' }, SAME_ORIGIN, '192.0.2.77')).statusCode).toBe(429);
  });

  it('refuses a login posted from another site (login CSRF)', async () => {
    const response = await login({ username: 'alice', password: 'alice-password' }, { origin: 'https://evil.example' });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'cross_origin_refused' });
  });

  it('makes admins from KURA_ADMINS', async () => {
    expect((await me(await logIn(kura, 'root'))).json()).toMatchObject({ role: 'admin' });
    expect((await me(await logIn(kura, 'mallory'))).json()).toMatchObject({ role: 'user' });
  });

  it('makes an admin of a user added by `kura user add NAME --admin`, and not without the flag', async () => {
    const cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-cli-admin-'));
    const env = { DATABASE_URL: kura.db.url, LOG_LEVEL: 'warn' };
    const chief = await runKura(['user', 'add', 'chief', '--admin'], env, cwd, 'chief-password\n');
    expect(chief.code, chief.stderr).toBe(0);
    const clerk = await runKura(['user', 'add', 'clerk'], env, cwd, 'clerk-password\n');
    expect(clerk.code, clerk.stderr).toBe(0);
    expect((await me(await logIn(kura, 'chief'))).json()).toMatchObject({ id: 'chief', role: 'admin' });
    expect((await me(await logIn(kura, 'clerk'))).json()).toMatchObject({ id: 'clerk', role: 'user' });
  });
});

describe('sessions', () => {
  it('answers 401 problem JSON without a session, or with an unknown one', async () => {
    for (const headers of [{}, { cookie: 'kura_session=forged' }]) {
      const response = await kura.app.inject({ url: '/api/user', headers });
      expect(response.statusCode).toBe(401);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json()).toMatchObject({ code: 'not_logged_in' });
    }
  });

  it('expire after their expiry, and slide forward when used', async () => {
    const cookie = await logIn(kura, 'alice');
    const hash = "sha256(convert_to($1, 'utf8'))";
    const token = cookie.split('=')[1];
    await kura.db.pool.query(
      `update sessions set expires_at = now() + interval '1 day', last_used_at = now() - interval '2 hours' where token_hash = ${hash}`,
      [token],
    );
    const used = await me(cookie);
    expect(used.statusCode).toBe(200);
    expect(used.cookies.find((c) => c.name === 'kura_session')?.maxAge).toBe(30 * 86_400); // the cookie slides too
    const { rows } = await kura.db.pool.query(`select extract(epoch from expires_at - now()) as left from sessions where token_hash = ${hash}`, [token]);
    expect(Number(rows[0].left)).toBeGreaterThan(29 * 86_400);
    await kura.db.pool.query(`update sessions set expires_at = now() - interval '1 second' where token_hash = ${hash}`, [token]);
    expect((await me(cookie)).statusCode).toBe(401);
  });

  it('end at logout: the session is deleted, the cookie cleared', async () => {
    const cookie = await logIn(kura, 'alice');
    const out = await kura.app.inject({ method: 'POST', url: '/auth/logout', headers: { ...SAME_ORIGIN, cookie } });
    expect(out.statusCode).toBe(204);
    expect(out.cookies.find((c) => c.name === 'kura_session')?.value).toBe('');
    expect((await me(cookie)).statusCode).toBe(401);
  });
});

describe('under an https public URL', () => {
  it('marks the session cookie Secure, and takes requests from that origin only', async () => {
    const secure = await startTestApp({ publicUrl: 'https://archive.example' });
    try {
      await addUser(secure, 'alice');
      const response = await secure.app.inject({
        method: 'POST',
        url: '/auth/local',
        headers: { origin: 'https://archive.example' },
        payload: { username: 'alice', password: 'alice-password' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.cookies.find((c) => c.name === 'kura_session')).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });
      const plain = await secure.app.inject({
        method: 'POST',
        url: '/auth/local',
        headers: { origin: 'http://archive.example' },
        payload: { username: 'alice', password: 'alice-password' },
      });
      expect(plain.statusCode).toBe(403);
    } finally {
      await secure.close();
    }
  });
});

describe('the OpenAPI document', () => {
  it('describes the account routes', async () => {
    const spec = (await kura.app.inject({ url: '/api/openapi.json' })).json();
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/auth/providers',
        '/auth/local',
        '/auth/logout',
        '/api/user',
        '/api/user/{provider}/{id}',
        '/api/tokens',
        '/api/tokens/{id}',
        '/api/submit',
        '/api/video/{id}/cancel',
        '/api/video/{id}/retry',
      ]),
    );
    expect(Object.keys(spec.paths['/api/video/{id}'])).toEqual(expect.arrayContaining(['get', 'delete']));
  });
});
