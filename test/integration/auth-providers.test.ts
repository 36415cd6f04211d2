import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

// Discord, Google, Twitch and GitHub cannot be reached from a test machine, and no double of
// them runs here: these tests stop at the redirect, which needs no network. The code exchange
// is arctic's, against the providers' real endpoints.
let kura: TestApp;
beforeAll(async () => {
  kura = await startTestApp(
    {},
    {
      env: {
        DISCORD_CLIENT_ID: 'discord-app',
        DISCORD_CLIENT_SECRET: 'x',
        GOOGLE_CLIENT_ID: 'google-app',
        GOOGLE_CLIENT_SECRET: 'x',
        TWITCH_CLIENT_ID: 'twitch-app',
        TWITCH_CLIENT_SECRET: 'x',
        GITHUB_CLIENT_ID: 'github-app',
        GITHUB_CLIENT_SECRET: 'x',
      },
    },
  );
});
afterAll(() => kura.close());

const AUTHORIZE = {
  discord: ['https://discord.com/oauth2/authorize', 'discord-app'],
  google: ['https://accounts.google.com/o/oauth2/v2/auth', 'google-app'],
  twitch: ['https://id.twitch.tv/oauth2/authorize', 'twitch-app'],
  github: ['https://github.com/login/oauth/authorize', 'github-app'],
} as const;

describe('OAuth providers (arctic)', () => {
  it('are each enabled by their client id and secret', async () => {
    const { providers } = (await kura.app.inject({ url: '/auth/providers' })).json();
    expect(providers).toEqual([
      { id: 'discord', name: 'Discord', loginUrl: 'http://kura.test/auth/discord/login' },
      { id: 'google', name: 'Google', loginUrl: 'http://kura.test/auth/google/login' },
      { id: 'twitch', name: 'Twitch', loginUrl: 'http://kura.test/auth/twitch/login' },
      { id: 'github', name: 'GitHub', loginUrl: 'http://kura.test/auth/github/login' },
    ]);
  });

  for (const [provider, [authorizeUrl, clientId]] of Object.entries(AUTHORIZE)) {
    it(`${provider}: the login redirects to its authorize URL with state and an S256 PKCE challenge kept for the callback`, async () => {
      const response = await kura.app.inject({ url: `/auth/${provider}/login?next=/queue` });
      expect(response.statusCode).toBe(302);
      const location = new URL(response.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(authorizeUrl);
      const params = location.searchParams;
      expect(params.get('client_id')).toBe(clientId);
      expect(params.get('response_type')).toBe('code');
      expect(params.get('redirect_uri')).toBe(`http://kura.test/auth/${provider}/callback`);
      expect(params.get('code_challenge_method')).toBe('S256');
      const cookie = response.cookies.find((c) => c.name === 'kura_login');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/auth', maxAge: 600 });
      // what the callback will check lives in PostgreSQL, under the hash of the cookie's attempt id
      const { rows } = await kura.db.pool.query('select provider, state, code_verifier, next_path from login_attempts where id_hash = $1', [
        createHash('sha256')
          .update(cookie?.value ?? '')
          .digest(),
      ]);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ provider, state: params.get('state'), next_path: '/queue' });
      expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.get('code_challenge')).toBe(createHash('sha256').update(rows[0].code_verifier).digest('base64url'));
    });
  }

  it('refuses a callback without the browser’s attempt, before any call to the provider', async () => {
    const response = await kura.app.inject({ url: '/auth/github/callback?code=abc&state=def' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'login_failed' });
  });

  it('reports a provider’s refusal (?error=) as a failed login', async () => {
    const login = await kura.app.inject({ url: '/auth/discord/login' });
    const cookie = login.cookies.find((c) => c.name === 'kura_login');
    const response = await kura.app.inject({ url: '/auth/discord/callback?error=access_denied', headers: { cookie: `kura_login=${cookie?.value}` } });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toContain('access_denied');
  });
});
