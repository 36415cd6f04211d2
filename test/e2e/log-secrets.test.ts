import { describe, expect, it } from 'vitest';
import { useCaptureHarness } from '../support/capture-harness.js';
import type { KuraProcess } from '../support/cli.js';

// An operator ships the server's log to places anyone on the team can read. A whole run of
// `kura serve` in which every kind of secret is made and used: none of them may be in any line of
// it (stdout and stderr), at the most talkative level. The setup token is the one secret printed
// on purpose (the operator reads it from the log to make the first admin) and is used up by then.
const h = useCaptureHarness();

const ORIGIN = 'http://kura.test';
const PASSWORD = 'pw-Hx92-correct-horse';
const WRONG_PASSWORD = 'pw-wrong-Zq81-horse';

describe('the server log', () => {
  it('holds no password, session, API or feed token, webhook secret nor URL credential made or used in a whole run', async () => {
    // a private instance: feed tokens in URLs too
    const api = await h.serve({ KURA_PUBLIC_URL: ORIGIN, KURA_PUBLIC_READ: 'false', LOG_LEVEL: 'debug' });
    const kura = h.kura as KuraProcess;
    const hint = await kura.waitForLog((line) => String(line.msg).includes('the setup token'));
    const setupToken = /the setup token ([0-9a-f]{32}),/.exec(String(hint.msg))?.[1] as string;
    const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${api}${path}`, { method, headers: { origin: ORIGIN, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

    const setup = await send('POST', '/auth/setup', { token: setupToken, username: 'boss', password: PASSWORD });
    expect(setup.status).toBe(200);
    expect((await send('POST', '/auth/local', { username: 'boss', password: WRONG_PASSWORD })).status).toBe(401);
    const login = await send('POST', '/auth/local', { username: 'boss', password: PASSWORD });
    const session = /kura_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1] as string;
    expect(session.length).toBeGreaterThan(20);
    const cookie = { cookie: `kura_session=${session}` };

    const token = ((await (await send('POST', '/api/tokens', { name: 'script' }, cookie)).json()) as { token: string }).token;
    const bearer = { authorization: `Bearer ${token}` };
    expect((await fetch(`${api}/api/user`, { headers: bearer })).status).toBe(200);
    const feedToken = ((await (await send('POST', '/api/user/feed-token', {}, cookie)).json()) as { token: string }).token;
    expect((await fetch(`${api}/feeds/queue.atom?feed_token=${feedToken}`)).status).toBe(200);
    expect((await fetch(`${api}/feeds/queue.atom?feed_token=${feedToken}x`)).status).toBe(401);

    const webhook = await send('POST', '/api/webhooks', { url: 'http://127.0.0.1:9/hook?token=wh-url-Kp27' }, bearer);
    expect(webhook.status).toBe(201);
    const { id: webhookId, secret: webhookSecret } = (await webhook.json()) as { id: string; secret: string };
    expect((await send('POST', `/api/webhooks/${webhookId}/test`, {}, bearer)).status).toBe(202);

    const follow = await send('POST', '/api/follows', { url: 'http://viewer:fo-pass-Ty55@127.0.0.1:9/live/index.m3u8?token=fo-url-Rb43' }, cookie);
    expect(follow.status).toBe(201);
    // a stream announced before it is on air, its URL carrying a key, and a typo
    const fixture = await h.startFixture({ seconds: 4 });
    const submitted = await send('POST', '/api/submit', { videoUrl: `${fixture.url}?key=sub-key-Lm66` }, cookie);
    expect(submitted.status).toBe(200);
    const { id } = (await submitted.json()) as { id: string };
    await kura.waitForLog((line) => String(line.msg).startsWith(`submitted by local/boss: ${id}`));
    expect((await send('POST', '/api/submit', { videoUrl: `${fixture.url}-typo?key=typo-key-Vb02` }, cookie)).status).toBe(400);
    await fetch(`${api}/api/history?key=query-key-Wd18`, { headers: bearer });

    kura.child.kill('SIGTERM');
    const { stdout, stderr } = await kura.exited;
    const log = `${stdout}\n${stderr}`;
    expect(log).toContain('first admin created: boss');
    const secrets = [
      PASSWORD,
      WRONG_PASSWORD,
      session,
      token,
      webhookSecret,
      'wh-url-Kp27',
      'fo-pass-Ty55',
      'fo-url-Rb43',
      'sub-key-Lm66',
      'typo-key-Vb02',
      'query-key-Wd18',
    ];
    expect(secrets.filter((secret) => log.includes(secret))).toEqual([]);
  });
});
