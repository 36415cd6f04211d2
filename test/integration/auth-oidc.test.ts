import type { LightMyRequestResponse } from 'fastify';
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { sessionCookieOf } from '../support/accounts.js';

// The whole OpenID Connect authorization-code flow against oauth2-mock-server, a real OIDC
// provider DOUBLE started here over HTTP on 127.0.0.1: discovery, authorize redirect, token
// exchange with PKCE, ID token signature, state and nonce — every hop over the network.
let idp: OAuth2Server;
let kura: TestApp;
beforeAll(async () => {
  idp = new OAuth2Server();
  await idp.issuer.keys.generate('RS256');
  await idp.start(0, '127.0.0.1');
  kura = await startTestApp(
    {},
    { env: { OIDC_ISSUER: idp.issuer.url as string, OIDC_CLIENT_ID: 'kura', OIDC_CLIENT_SECRET: 'kura-secret', OIDC_NAME: 'Test IdP' } },
  );
});
afterAll(async () => {
  await kura?.close();
  await idp?.stop();
});

const loginCookieOf = (response: LightMyRequestResponse) => {
  const cookie = response.cookies.find((c) => c.name === 'kura_login');
  if (cookie === undefined) throw new Error('no login cookie');
  return `kura_login=${cookie.value}`;
};

/** Kura's login redirect, then the provider's authorize endpoint (over HTTP): the callback URL it sends the browser to. */
async function startLogin(next = '/') {
  const login = await kura.app.inject({ url: `/auth/oidc/login?next=${encodeURIComponent(next)}` });
  expect(login.statusCode).toBe(302);
  const authorize = new URL(login.headers.location as string);
  const answer = await fetch(authorize, { redirect: 'manual' });
  expect(answer.status).toBe(302);
  return { authorize, callback: new URL(answer.headers.get('location') as string), cookie: loginCookieOf(login) };
}

/** Claims the provider puts in the tokens it signs until the returned function is called. */
function signWith(claims: Record<string, unknown>): () => void {
  const listener = (token: { payload: Record<string, unknown> }) => Object.assign(token.payload, claims);
  idp.service.on('beforeTokenSigning', listener);
  return () => idp.service.off('beforeTokenSigning', listener);
}

const callback = (url: URL, cookie: string) => kura.app.inject({ url: `${url.pathname}${url.search}`, headers: { cookie } });

describe('OpenID Connect login', () => {
  it('lists the provider by its OIDC_NAME', async () => {
    const response = await kura.app.inject({ url: '/auth/providers' });
    expect(response.json()).toEqual({
      providers: [{ id: 'oidc', name: 'Test IdP', loginUrl: 'http://kura.test/auth/oidc/login' }],
      local: true,
      setupRequired: true,
      publicRead: true,
    });
  });

  it('sends the browser to the provider with state, nonce and an S256 PKCE challenge', async () => {
    const { authorize } = await startLogin();
    expect(authorize.origin).toBe(new URL(idp.issuer.url as string).origin);
    const params = authorize.searchParams;
    expect(params.get('redirect_uri')).toBe('http://kura.test/auth/oidc/callback');
    expect(params.get('code_challenge_method')).toBe('S256');
    for (const name of ['state', 'nonce', 'code_challenge']) expect(params.get(name), name).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('logs in through the whole flow, keeps the user by (provider, subject), returns to `next`', async () => {
    const stop = signWith({ sub: 'user-42', name: 'Ada' });
    const { callback: back, cookie } = await startLogin('/history?page=2');
    const done = await callback(back, cookie);
    stop();
    expect(done.statusCode, done.body).toBe(302);
    expect(done.headers.location).toBe('http://kura.test/history?page=2');
    expect(done.cookies.find((c) => c.name === 'kura_login')?.value).toBe(''); // the attempt cookie is cleared
    const me = await kura.app.inject({ url: '/api/user', headers: { cookie: sessionCookieOf(done) } });
    expect(me.json()).toEqual({ id: 'user-42', name: 'Ada', avatar: null, provider: 'oidc', role: 'user' });

    // a second login refreshes the name of the same user
    const stopAgain = signWith({ sub: 'user-42', name: 'Ada Lovelace' });
    const again = await startLogin();
    expect((await callback(again.callback, again.cookie)).statusCode).toBe(302);
    stopAgain();
    expect((await kura.app.inject({ url: '/api/user/oidc/user-42' })).json()).toEqual({ id: 'user-42', name: 'Ada Lovelace', avatar: null, provider: 'oidc' });
    const { rows } = await kura.db.pool.query(`select count(*)::int as n from users where provider = 'oidc'`);
    expect(rows[0].n).toBe(1);
  });

  it('refuses a callback whose state is not the one it sent', async () => {
    const { callback: back, cookie } = await startLogin();
    back.searchParams.set('state', 'x'.repeat(43));
    const response = await callback(back, cookie);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'login_failed', detail: expect.stringContaining('state') });
    expect(response.cookies.some((c) => c.name === 'kura_session')).toBe(false);
  });

  it('refuses a replayed callback (the same code, state and cookie twice)', async () => {
    const { callback: back, cookie } = await startLogin();
    expect((await callback(back, cookie)).statusCode).toBe(302);
    const replay = await callback(back, cookie);
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ code: 'login_failed', detail: expect.stringContaining('already used') });
  });

  it('refuses a callback from a browser that started no login (no attempt cookie)', async () => {
    const { callback: back } = await startLogin();
    const response = await callback(back, 'kura_login=someone-elses');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'login_failed' });
  });

  it('refuses an ID token whose nonce is not the one it sent', async () => {
    const stop = signWith({ nonce: 'forged-nonce' });
    const { callback: back, cookie } = await startLogin();
    const response = await callback(back, cookie);
    stop();
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'login_failed', detail: expect.stringContaining('nonce') });
    expect(response.cookies.some((c) => c.name === 'kura_session')).toBe(false);
  });

  it('keeps `next` within the instance', async () => {
    const { callback: back, cookie } = await startLogin('https://evil.example/phish');
    expect((await callback(back, cookie)).headers.location).toBe('http://kura.test/');
  });

  it('answers 404 for a provider that is not enabled', async () => {
    const response = await kura.app.inject({ url: '/auth/discord/login' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'provider_not_found' });
  });
});
