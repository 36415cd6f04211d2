import type { LookupAddress } from 'node:dns';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFollowRepo } from '../../src/adapters/db/follow-repo.js';
import { createHlsEndpointSignal } from '../../src/adapters/follows/hls-endpoint-signal.js';
import { createHostPacer } from '../../src/adapters/follows/host-pacer.js';
import { createFetcher } from '../../src/adapters/sources/http-fetch.js';
import { checkAsHeld } from '../support/follow-holder.js';
import type { FollowSignal } from '../../src/core/follows/ports.js';
import { createWebhookRepo } from '../../src/adapters/db/webhook-repo.js';
import { createWebhookSender } from '../../src/adapters/notifications/webhook-sender.js';
import { createOutboundClient } from '../../src/adapters/outbound/outbound-client.js';
import { deliverWebhooks } from '../../src/core/notifications/deliver-webhooks.js';
import { webhookBodies } from '../../src/adapters/notifications/webhook-body.js';
import { startTestApp, testSources, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';

// Follows and webhooks whose host name resolves to a non-public address, on an app that refuses
// private sources (KURA_ALLOW_PRIVATE_SOURCES=false). DNS is an IN-TEST resolver (the seam the
// outbound client has always had), so names point where each case says without a network.
const dns = new Map<string, string>();
const resolve = async (hostname: string): Promise<LookupAddress[]> => {
  const address = dns.get(hostname);
  if (address === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: address.includes(':') ? 6 : 4 }];
};

let kura: TestApp;
let admin: string;
let viewer: string;
beforeEach(async () => {
  dns.clear();
  kura = await startTestApp({}, { env: { KURA_ALLOW_PRIVATE_SOURCES: 'false' } }, { resolve });
  await addUser(kura, 'root', { admin: true });
  await addUser(kura, 'viewer');
  [admin, viewer] = await Promise.all([logIn(kura, 'root'), logIn(kura, 'viewer')]);
});
afterEach(async () => {
  await kura.close();
});

const post = (url: string, cookie: string, payload: object) => kura.app.inject({ method: 'POST', url, headers: { ...SAME_ORIGIN, cookie }, payload });

describe('a follow whose host name resolves to a non-public address', () => {
  it('is refused at creation (400 invalid_follow), the admin told where the name points', async () => {
    dns.set('intranet.example', '10.1.2.3');
    const refused = await post('/api/follows', admin, { url: 'https://intranet.example/live/index.m3u8' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 'invalid_follow',
      detail: 'Kura will not follow https://intranet.example/live/index.m3u8: intranet.example resolves to a non-public address: 10.1.2.3 is a private address',
    });
    expect((await kura.app.inject({ url: '/api/follows' })).json()).toEqual([]);
  });

  it('is accepted when the name resolves to a public address, or does not resolve now', async () => {
    dns.set('streams.example', '93.184.215.14');
    expect((await post('/api/follows', admin, { url: 'https://streams.example/live/index.m3u8' })).statusCode).toBe(201);
    expect((await post('/api/follows', admin, { url: 'https://offline.example/live/index.m3u8' })).statusCode).toBe(201);
  });

  it('that pointed elsewhere at creation fails at its check, the public told only "refused: not a public address"', async () => {
    dns.set('streams.example', '93.184.215.14');
    const created = await post('/api/follows', admin, { url: 'https://user:pa55word@streams.example/live/index.m3u8?token=t0ken' });
    expect(created.statusCode, created.body).toBe(201);
    dns.set('streams.example', '10.1.2.3'); // the name moved to the internal network since
    const follows = createFollowRepo(kura.db.pool);
    const playlist = createHlsEndpointSignal({ fetcher: createFetcher({ allowPrivate: false, resolve }) });
    const unused: FollowSignal = { ...playlist, look: () => Promise.reject(new Error('not this signal')) };
    const deps = {
      follows,
      livestreams: kura.db.livestreams,
      captures: createCaptureRepo(kura.db.pool),
      scheduler: kura.jobs,
      source: testSources(),
      pacer: createHostPacer({ requestsPerMinute: 600_000 }),
      signals: { feed: unused, tabs: unused, holodex: unused, playlist, helix: unused },
    };
    const policy = { intervals: { feed: 60, tabs: 60, holodex: 60, playlist: 60, helix: 60 }, horizonSeconds: 3600 };
    await checkAsHeld(deps, created.json().id, policy, new Date());

    for (const cookie of [undefined, viewer]) {
      const shown = await kura.app.inject({ url: '/api/follows', headers: cookie === undefined ? {} : { cookie } });
      expect(shown.json()[0].signals[0]).toMatchObject({ signal: 'playlist', lastError: 'streams.example: refused: not a public address' });
      expect(shown.body).not.toContain('10.1.2.3');
    }
    const toAdmin = await kura.app.inject({ url: '/api/follows', headers: { cookie: admin } });
    expect(toAdmin.json()[0].signals[0].lastError).toMatch(/^streams\.example resolves to a non-public address: 10\.1\.2\.3 is a private address/);
  });
});

describe('a webhook whose host name resolves to a non-public address', () => {
  it('is refused at creation (400 invalid_webhook), naming the address to the admin only', async () => {
    dns.set('hooks.intranet.example', '192.168.7.9');
    const byAdmin = await post('/api/webhooks', admin, { url: 'https://hooks.intranet.example/kura' });
    expect(byAdmin.statusCode).toBe(400);
    expect(byAdmin.json()).toMatchObject({
      code: 'invalid_webhook',
      detail: 'hooks.intranet.example resolves to a non-public address: 192.168.7.9 is a private address',
    });
    const personal = await post('/api/user/webhooks', viewer, { url: 'https://hooks.intranet.example/kura' });
    expect(personal.statusCode).toBe(400);
    expect(personal.json()).toMatchObject({
      code: 'invalid_webhook',
      detail: 'hooks.intranet.example resolves to a non-public address (refused: not a public address)',
    });
    expect((await kura.app.inject({ url: '/api/webhooks', headers: { cookie: admin } })).json()).toEqual([]);
  });

  it('is accepted when the name resolves to a public address', async () => {
    dns.set('hooks.example', '93.184.215.14');
    expect((await post('/api/user/webhooks', viewer, { url: 'https://hooks.example/kura' })).statusCode).toBe(201);
  });

  it("that moved to a non-public address since, fails its deliveries; its owner reads only 'refused: not a public address'", async () => {
    dns.set('hooks.example', '93.184.215.14');
    const created = await post('/api/user/webhooks', viewer, { url: 'https://hooks.example/kura' });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    dns.set('hooks.example', '10.1.2.3'); // the name moved to the internal network since
    expect((await post(`/api/user/webhooks/${id}/test`, viewer, {})).statusCode).toBe(202);
    const outbound = createOutboundClient({ allowPrivate: false, resolve });
    await deliverWebhooks({ webhooks: createWebhookRepo(kura.db.pool), sender: createWebhookSender({ outbound, bodyFor: webhookBodies('http://kura.test') }) });
    const deliveries = await kura.app.inject({ url: `/api/user/webhooks/${id}/deliveries`, headers: { cookie: viewer } });
    expect(deliveries.json()).toEqual([
      expect.objectContaining({ eventType: 'webhook.test', attempts: 1, lastError: 'hooks.example: refused: not a public address' }),
    ]);
    expect(deliveries.body).not.toContain('10.1.2.3');
  });
});
