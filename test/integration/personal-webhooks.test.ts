import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, createToken, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { queueSubmitted, startReceiver, startWorker } from '../support/webhooks.js';

let kura: TestApp;
let alice: string;
let bob: string;
let carol: string;
const closers: Array<() => Promise<void>> = [];
beforeEach(async () => {
  kura = await startTestApp();
  await addUser(kura, 'alice');
  await addUser(kura, 'bob');
  await addUser(kura, 'carol', { admin: true });
  [alice, bob, carol] = await Promise.all([logIn(kura, 'alice'), logIn(kura, 'bob'), logIn(kura, 'carol')]);
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await kura.close();
});

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, auth?: string, payload?: unknown, app: TestApp = kura) =>
  app.app.inject({
    method,
    url,
    headers: { ...SAME_ORIGIN, ...(auth === undefined ? {} : auth.startsWith('Bearer ') ? { authorization: auth } : { cookie: auth }) },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

/** A receiver verifying with the standardwebhooks package, subscribed through `path` by `cookie`. */
async function subscribedReceiver(cookie: string, path = '/api/user/webhooks') {
  const receiver = await startReceiver();
  closers.push(receiver.close);
  const created = await call('POST', path, cookie, { url: receiver.url });
  expect(created.statusCode, created.body).toBe(201);
  receiver.useSecret(created.json().secret);
  return { receiver, webhook: created.json() };
}

async function startDelivering() {
  const worker = await startWorker(kura.db);
  closers.push(worker.stop);
}

const archive = { fileSizeBytes: 2048, lengthSeconds: 30, videoKey: 'videos/x.mp4', logKey: 'logs/x.log', thumbnailKey: null, sha256: 'b'.repeat(64) };

describe('personal webhooks', () => {
  it("sends a user's webhook the queued, live and finished of their submission, not another user's; an instance webhook gets both", async () => {
    const mine = await subscribedReceiver(alice);
    expect(mine.webhook).toMatchObject({ owner: 'local/alice', createdBy: 'local/alice', secret: expect.stringMatching(/^whsec_/) });
    const everything = await subscribedReceiver(carol, '/api/webhooks');
    await startDelivering();
    await queueSubmitted(kura.db, 'bobs', { submitter: 'local/bob' });
    await kura.db.livestreams.transition('bobs', { type: 'went_live', at: new Date() });
    await queueSubmitted(kura.db, 'alices', { submitter: 'local/alice' });
    await kura.db.livestreams.transition('alices', { type: 'went_live', at: new Date() });
    await kura.db.livestreams.transition('alices', { type: 'archived', endedAt: new Date(), archive });
    await Promise.all([mine.receiver.waitFor(3), everything.receiver.waitFor(5)]);

    expect(mine.receiver.refusedSignatures).toEqual([]);
    expect(mine.receiver.received.map((r) => [r.type, r.data.id])).toEqual([
      ['livestream.queued', 'alices'],
      ['livestream.live', 'alices'],
      ['livestream.finished', 'alices'],
    ]);
    expect(mine.receiver.received[2]?.data).toMatchObject({ submitters: ['local/alice'], fileSizeBytes: 2048, length: 30 });
    // the fan-out happened when the changes committed: bob's record has no delivery to alice's webhook
    const deliveries = await call('GET', `/api/user/webhooks/${mine.webhook.id}/deliveries`, alice);
    expect(deliveries.json().map((d: { livestreamId: string }) => d.livestreamId)).toEqual(['alices', 'alices', 'alices']);
    const seen = everything.receiver.received.map((r) => `${r.data.id} ${r.type}`).sort();
    expect(seen).toEqual([
      'alices livestream.finished',
      'alices livestream.live',
      'alices livestream.queued',
      'bobs livestream.live',
      'bobs livestream.queued',
    ]);
  });

  it("sends an admin's personal webhook the streams a follow they created queued", async () => {
    const follow = await call('POST', '/api/follows', carol, { url: 'http://127.0.0.1:9/live/index.m3u8', channel: 'Karaoke Night' });
    expect(follow.statusCode, follow.body).toBe(201);
    const mine = await subscribedReceiver(carol);
    await startDelivering();
    await queueSubmitted(kura.db, 'someone-elses', { submitter: 'local/bob' });
    // as the follow's check queues a stream: submitted by follow/{id}
    await queueSubmitted(kura.db, 'followed', { submitter: `follow/${follow.json().id}` });
    await mine.receiver.waitFor(1);
    expect(mine.receiver.received.map((r) => [r.type, r.data.id, r.data.submitters])).toEqual([
      ['livestream.queued', 'followed', [`follow/${follow.json().id}`]],
    ]);
    const deliveries = await call('GET', `/api/user/webhooks/${mine.webhook.id}/deliveries`, carol);
    expect(deliveries.json().map((d: { livestreamId: string }) => d.livestreamId)).toEqual(['followed']);
  });

  it("shows, tests and removes only the caller's own webhooks: another user's is not found (404)", async () => {
    const bobs = await call('POST', '/api/user/webhooks', bob, { url: 'https://hooks.example.com/bob' });
    const id = bobs.json().id;
    const token = `Bearer ${(await createToken(kura, alice)).token}`;
    const alices = await call('POST', '/api/user/webhooks', token, { url: 'https://discord.com/api/webhooks/1/abc' });
    expect(alices.statusCode, alices.body).toBe(201);
    expect((await call('GET', '/api/user/webhooks', token)).json()).toEqual([expect.objectContaining({ id: alices.json().id, owner: 'local/alice' })]);
    for (const [method, url] of [
      ['DELETE', `/api/user/webhooks/${id}`],
      ['GET', `/api/user/webhooks/${id}/deliveries`],
      ['POST', `/api/user/webhooks/${id}/test`],
      ['POST', `/api/user/webhooks/${id}/enable`],
    ] as const) {
      const refused = await call(method, url, alice);
      expect([url, refused.statusCode, refused.json().code]).toEqual([url, 404, 'webhook_not_found']);
    }
    expect((await call('GET', '/api/user/webhooks', bob)).json()).toEqual([expect.objectContaining({ id, owner: 'local/bob' })]);
    expect((await call('GET', '/api/webhooks', carol)).json().map((w: { owner: string }) => w.owner)).toEqual(['local/bob', 'local/alice']);
    const test = await call('POST', `/api/user/webhooks/${id}/test`, bob);
    expect(test.statusCode).toBe(202);
    // a personal webhook disabled for failing is enabled again by its owner
    await kura.db.pool.query(`update webhooks set disabled_at = now(), disabled_reason = 'failing for 5 days' where id = $1`, [id]);
    const enabled = await call('POST', `/api/user/webhooks/${id}/enable`, bob);
    expect([enabled.statusCode, enabled.json().disabledAt]).toEqual([200, null]);
    expect((await call('DELETE', `/api/user/webhooks/${id}`, bob)).statusCode).toBe(204);
    expect((await call('GET', '/api/user/webhooks', bob)).json()).toEqual([]);
  });

  it('refuses a sixth webhook of one user with 409 webhook_limit_reached', async () => {
    for (let n = 1; n <= 5; n++) expect((await call('POST', '/api/user/webhooks', alice, { url: `https://hooks.example.com/${n}` })).statusCode).toBe(201);
    const sixth = await call('POST', '/api/user/webhooks', alice, { url: 'https://hooks.example.com/6' });
    expect([sixth.statusCode, sixth.json().code]).toEqual([409, 'webhook_limit_reached']);
    expect((await call('POST', '/api/user/webhooks', bob, { url: 'https://hooks.example.com/bob' })).statusCode).toBe(201);
  });

  it('refuses anyone not logged in before looking at the input (401), and a cookie-borne change from another site (403)', async () => {
    for (const [method, url] of [
      ['GET', '/api/user/webhooks'],
      ['POST', '/api/user/webhooks'],
      ['DELETE', '/api/user/webhooks/not%20an%20id'],
      ['GET', '/api/user/webhooks/not%20an%20id/deliveries'],
      ['POST', '/api/user/webhooks/not%20an%20id/test'],
    ] as const) {
      const anonymous = await call(method, url, undefined, method === 'POST' ? { nonsense: true } : undefined);
      expect([url, anonymous.statusCode, anonymous.json().code]).toEqual([url, 401, 'not_logged_in']);
    }
    const crossSite = await kura.app.inject({
      method: 'POST',
      url: '/api/user/webhooks',
      headers: { origin: 'https://evil.example', cookie: alice },
      payload: { url: 'https://hooks.example.com/x' },
    });
    expect([crossSite.statusCode, crossSite.json().code]).toEqual([403, 'cross_origin_refused']);
  });

  it('refuses a private target without KURA_ALLOW_PRIVATE_SOURCES (400 invalid_webhook)', async () => {
    const strict = await startTestApp({}, { env: { KURA_ALLOW_PRIVATE_SOURCES: 'false' } });
    closers.push(strict.close);
    await addUser(strict, 'dave');
    const dave = await logIn(strict, 'dave');
    const refused = await call('POST', '/api/user/webhooks', dave, { url: 'http://127.0.0.1:8080/hook' }, strict);
    expect([refused.statusCode, refused.json().code]).toEqual([400, 'invalid_webhook']);
  });
});
