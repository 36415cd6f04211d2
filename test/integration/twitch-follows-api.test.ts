import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { startHelixStandIn, type HelixStandIn } from '../support/helix-stand-in.js';

// Following a Twitch channel through the API (decision 0139): the login is resolved once through
// the STAND-IN Helix (test/support/helix-stand-in.ts); without credentials the follow is refused.
let kura: TestApp | null = null;
let twitch: HelixStandIn | null = null;
afterEach(async () => {
  await kura?.close();
  await twitch?.close();
  [kura, twitch] = [null, null];
});

/** Starts the app with `env`; returns how its admin creates a follow. */
async function app(env: Record<string, string> = {}) {
  const started = await startTestApp({}, { env });
  kura = started;
  await addUser(started, 'root', { admin: true });
  const admin = await logIn(started, 'root');
  return (payload: object) => started.app.inject({ method: 'POST', url: '/api/follows', headers: { ...SAME_ORIGIN, cookie: admin }, payload });
}

describe('following a Twitch channel', () => {
  it('is refused on an instance without Twitch credentials, saying how to get them', async () => {
    const create = await app();
    const refused = await create({ url: 'https://www.twitch.tv/alice' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'invalid_follow' });
    expect(refused.json().detail).toContain('register one at https://dev.twitch.tv/console/apps');
    expect(refused.json().detail).toContain('set KURA_TWITCH_CLIENT_ID and KURA_TWITCH_CLIENT_SECRET');
  });

  it('resolves the login once through Twitch’s API, keeps its page in lower case, and refuses a channel Twitch does not have', async () => {
    twitch = await startHelixStandIn();
    twitch.users.set('alice', 'Alice');
    const create = await app({
      KURA_TWITCH_CLIENT_ID: twitch.clientId,
      KURA_TWITCH_CLIENT_SECRET: twitch.clientSecret,
      KURA_TWITCH_API_URL: twitch.apiUrl,
      KURA_TWITCH_AUTH_URL: twitch.authUrl,
    });
    const created = await create({ url: 'https://m.twitch.tv/ALICE', titleExclude: 'rerun', keepLast: 5 });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      kind: 'twitch_channel',
      url: 'https://www.twitch.tv/alice',
      channelId: 'twitch:alice',
      channelName: 'Alice',
      rules: { titleInclude: null, titleExclude: 'rerun' },
      retention: { keepLast: 5 },
      signals: [{ signal: 'helix', lastCheckedAt: null }],
    });
    expect(twitch.requests).toEqual([{ path: '/helix/users', logins: ['alice'], status: 200 }]);
    expect((await create({ url: 'https://www.twitch.tv/alice' })).json()).toMatchObject({ code: 'already_followed' });

    const unknown = await create({ url: 'https://www.twitch.tv/nobody_here' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().detail).toBe('Kura could not find the Twitch channel nobody_here: Twitch has no channel named nobody_here');
    const notAChannel = await create({ url: 'https://www.twitch.tv/alice/videos' });
    expect(notAChannel.json().detail).toMatch(/^https:\/\/www\.twitch\.tv\/alice\/videos is not a Twitch channel: follow its page/);
  });
});
