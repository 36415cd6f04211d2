import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, createToken, logIn, SAME_ORIGIN } from '../support/accounts.js';

let kura: TestApp;
let alice: string;
let bob: string;
beforeAll(async () => {
  kura = await startTestApp();
  await addUser(kura, 'alice');
  await addUser(kura, 'bob');
  alice = await logIn(kura, 'alice');
  bob = await logIn(kura, 'bob');
});
afterAll(() => kura.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('API tokens', () => {
  it('are shown once at creation, stored hashed, and identify their owner as a bearer', async () => {
    const created = await kura.app.inject({ method: 'POST', url: '/api/tokens', headers: { ...SAME_ORIGIN, cookie: alice }, payload: { name: 'my script' } });
    expect(created.statusCode).toBe(201);
    const { id, token, name } = created.json();
    expect(name).toBe('my script');
    expect(token).toMatch(/^kura_[A-Za-z0-9_-]{43}$/);
    const { rows } = await kura.db.pool.query(`select encode(token_hash, 'hex') as hash from api_tokens where id = $1`, [id]);
    expect(rows[0].hash).toBe(createHash('sha256').update(token, 'utf8').digest('hex'));
    expect((await kura.app.inject({ url: '/api/user', headers: bearer(token) })).json()).toMatchObject({ id: 'alice', provider: 'local' });
    const listed = (await kura.app.inject({ url: '/api/tokens', headers: { cookie: alice } })).json();
    expect(listed).toEqual([{ id, name: 'my script', createdAt: expect.any(String), lastUsedAt: expect.any(String) }]);
    expect(JSON.stringify(listed)).not.toContain(token);
  });

  it('stop working once revoked; another user cannot revoke them (404)', async () => {
    const { id, token } = await createToken(kura, alice);
    const foreign = await kura.app.inject({ method: 'DELETE', url: `/api/tokens/${id}`, headers: { ...SAME_ORIGIN, cookie: bob } });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: 'token_not_found' });
    expect((await kura.app.inject({ url: '/api/user', headers: bearer(token) })).statusCode).toBe(200);
    const revoked = await kura.app.inject({ method: 'DELETE', url: `/api/tokens/${id}`, headers: bearer(token) });
    expect(revoked.statusCode).toBe(204);
    expect((await kura.app.inject({ url: '/api/user', headers: bearer(token) })).statusCode).toBe(401);
    expect((await kura.app.inject({ method: 'DELETE', url: `/api/tokens/${id}`, headers: { ...SAME_ORIGIN, cookie: alice } })).statusCode).toBe(404);
  });

  it('need a logged-in caller (401), and an unknown bearer is not one', async () => {
    expect((await kura.app.inject({ method: 'POST', url: '/api/tokens', headers: SAME_ORIGIN })).statusCode).toBe(401);
    expect((await kura.app.inject({ url: '/api/tokens', headers: bearer('kura_forged') })).statusCode).toBe(401);
  });

  it('are listed only to their owner', async () => {
    await createToken(kura, bob);
    const mine = (await kura.app.inject({ url: '/api/tokens', headers: { cookie: bob } })).json();
    expect(mine).toHaveLength(1);
  });
});

describe('public identities', () => {
  it('answer GET /api/user/{provider}/{id}, and 404 for an unknown user (null with optional=true)', async () => {
    expect((await kura.app.inject({ url: '/api/user/local/alice' })).json()).toEqual({ id: 'alice', name: 'alice', avatar: null, provider: 'local' });
    expect((await kura.app.inject({ url: '/api/user/local/alice?optional=true' })).json()).toMatchObject({ name: 'alice' });
    const unknown = await kura.app.inject({ url: '/api/user/discord/404' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'user_not_found' });
    const optional = await kura.app.inject({ url: '/api/user/discord/404?optional=true' });
    expect([optional.statusCode, optional.body]).toEqual([200, 'null']);
  });
});
