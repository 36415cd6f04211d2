import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';

let kura: TestApp;
let admin: string;
let viewer: string;
beforeEach(async () => {
  kura = await startTestApp();
  await addUser(kura, 'root', { admin: true });
  await addUser(kura, 'viewer');
  admin = await logIn(kura, 'root');
  viewer = await logIn(kura, 'viewer');
});
afterEach(async () => {
  await kura.close();
});

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, cookie?: string, payload?: unknown) =>
  kura.app.inject({
    method,
    url,
    headers: { ...SAME_ORIGIN, ...(cookie ? { cookie } : {}) },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

describe('webhooks API', () => {
  it('refuses anyone but an admin before looking at the input: 401 without a login, 403 for a viewer', async () => {
    for (const [method, url] of [
      ['GET', '/api/webhooks'],
      ['POST', '/api/webhooks'],
      ['DELETE', '/api/webhooks/not%20an%20id'],
      ['GET', '/api/webhooks/not%20an%20id/deliveries'],
      ['POST', '/api/webhooks/not%20an%20id/test'],
      ['POST', '/api/webhooks/not%20an%20id/enable'],
    ] as const) {
      const anonymous = await call(method, url, undefined, method === 'POST' ? { nonsense: true } : undefined);
      expect([url, anonymous.statusCode, anonymous.json().code]).toEqual([url, 401, 'not_logged_in']);
      const user = await call(method, url, viewer, method === 'POST' ? { nonsense: true } : undefined);
      expect([url, user.statusCode, user.json().code]).toEqual([url, 403, 'admin_only']);
    }
  });

  it('adds a webhook showing its secret once, lists it without the secret, tests it, lists its deliveries and removes it', async () => {
    const created = await call('POST', '/api/webhooks', admin, { url: 'https://hooks.example.com/kura', events: ['livestream.finished'], channelId: 'UCx' });
    expect(created.statusCode, created.body).toBe(201);
    const webhook = created.json();
    expect(webhook).toMatchObject({
      url: 'https://hooks.example.com/kura',
      discord: false,
      events: ['livestream.finished'],
      channelId: 'UCx',
      createdBy: 'local/root',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{32}$/),
      disabledAt: null,
    });
    const listed = await call('GET', '/api/webhooks', admin);
    const shown: Record<string, unknown> = { ...webhook };
    delete shown.secret;
    expect(listed.json()).toEqual([shown]);
    expect(listed.body).not.toContain(webhook.secret);

    const test = await call('POST', `/api/webhooks/${webhook.id}/test`, admin);
    expect(test.statusCode, test.body).toBe(202);
    const deliveries = await call('GET', `/api/webhooks/${webhook.id}/deliveries`, admin);
    expect(deliveries.json()).toEqual([
      expect.objectContaining({ eventId: test.json().eventId, eventType: 'webhook.test', status: 'pending', attempts: 0, lastStatusCode: null }),
    ]);

    expect((await call('DELETE', `/api/webhooks/${webhook.id}`, admin)).statusCode).toBe(204);
    const gone = await call('GET', `/api/webhooks/${webhook.id}/deliveries`, admin);
    expect([gone.statusCode, gone.json().code]).toEqual([404, 'webhook_not_found']);
    expect((await call('GET', '/api/webhooks', admin)).json()).toEqual([]);
  });

  it('enables a disabled webhook again: the flags are cleared, its waiting delivery is due at once, new events reach it', async () => {
    const webhook = (await call('POST', '/api/webhooks', admin, { url: 'https://hooks.example.com/kura' })).json();
    const waiting = (await call('POST', `/api/webhooks/${webhook.id}/test`, admin)).json().eventId;
    // as five days of failures leave it: disabled with the reason, its delivery waiting for a later try
    await kura.db.pool.query(
      `update webhooks set failing_since = now() - interval '6 days', disabled_at = now() - interval '1 hour', disabled_reason = 'Every delivery failed for 5 days.' where id = $1`,
      [webhook.id],
    );
    await kura.db.pool.query(`update webhook_deliveries set next_attempt_at = now() + interval '4 hours' where webhook_id = $1`, [webhook.id]);
    const disabled = (await call('GET', '/api/webhooks', admin)).json()[0];
    expect(disabled).toMatchObject({ disabledReason: 'Every delivery failed for 5 days.', failingSince: expect.any(String), disabledAt: expect.any(String) });

    const enabled = await call('POST', `/api/webhooks/${webhook.id}/enable`, admin);
    expect(enabled.statusCode, enabled.body).toBe(200);
    expect(enabled.json()).toMatchObject({ id: webhook.id, disabledAt: null, disabledReason: null, failingSince: null });
    expect((await call('GET', '/api/webhooks', admin)).json()[0]).toMatchObject({ disabledAt: null, failingSince: null });
    const [pending] = (await call('GET', `/api/webhooks/${webhook.id}/deliveries`, admin)).json();
    expect(pending).toMatchObject({ eventId: waiting, status: 'pending' });
    expect(Date.parse(pending.nextAttemptAt)).toBeLessThanOrEqual(Date.now() + 1000);

    // enabled webhooks get the events written from now on (a disabled one is left out of the fan-out)
    const { rows } = await kura.db.pool.query(`select enqueue_event('livestream.queued', 'rec1', 'UCx', '{}'::jsonb) as id`);
    const deliveries = (await call('GET', `/api/webhooks/${webhook.id}/deliveries`, admin)).json();
    expect(deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([String(rows[0].id), waiting]);

    const missing = await call('POST', '/api/webhooks/nosuchhook/enable', admin);
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'webhook_not_found']);
  });

  it('marks a Discord webhook URL as Discord (it is sent Discord messages)', async () => {
    const url = 'https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz0123456789ABCD';
    expect((await call('POST', '/api/webhooks', admin, { url })).json()).toMatchObject({ url, discord: true });
    expect((await call('GET', '/api/webhooks', admin)).json()).toEqual([expect.objectContaining({ url, discord: true })]);
  });

  it('refuses a bad URL or an unknown event type with 400 and a stable code', async () => {
    const badUrl = await call('POST', '/api/webhooks', admin, { url: 'ftp://example.com/x' });
    expect([badUrl.statusCode, badUrl.json().code]).toEqual([400, 'invalid_webhook']);
    const badEvent = await call('POST', '/api/webhooks', admin, { url: 'https://example.com/x', events: ['livestream.exploded'] });
    expect([badEvent.statusCode, badEvent.json().code]).toEqual([400, 'invalid_body']);
    const missing = await call('DELETE', '/api/webhooks/nosuchhook', admin);
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'webhook_not_found']);
  });
});
