import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offerSetupToken } from '../../src/core/accounts/offer-setup-token.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { startTestApp, type TestApp } from '../support/app.js';

// Every limit, hit by requests fired in parallel against the real app and PostgreSQL: exactly the
// limit gets through, the rest are refused with a problem (429 with Retry-After for a rate, 409
// for a count). Each test uses callers of its own, so their counters start at zero.
let kura: TestApp;
beforeAll(async () => {
  kura = await startTestApp();
});
afterAll(() => kura.close());

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, cookie: string, payload?: object) =>
  kura.app.inject({ method, url, headers: { ...SAME_ORIGIN, cookie }, ...(payload === undefined ? {} : { payload }) });
/** `count` calls at once. */
const burst = (count: number, send: (i: number) => Promise<LightMyRequestResponse>) => Promise.all(Array.from({ length: count }, (_, i) => send(i)));
const withStatus = (responses: LightMyRequestResponse[], status: number) => responses.filter((r) => r.statusCode === status);
/** A user logged in through the API, an admin if asked. */
async function caller(name: string, admin = false): Promise<string> {
  await addUser(kura, name, { admin });
  return logIn(kura, name);
}
/** Every refusal is `too_many_requests` with a Retry-After within the window. */
function expectRateLimited(refused: LightMyRequestResponse[], windowSeconds: number) {
  for (const response of refused) {
    expect(response.json()).toMatchObject({ status: 429, code: 'too_many_requests' });
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(windowSeconds);
  }
}

describe('setup tokens (the login limit, 10 per address in 15 min)', () => {
  let fresh: TestApp;
  beforeAll(async () => {
    fresh = await startTestApp();
  });
  afterAll(() => fresh.close());
  const setup = (from: string, token: string, username = 'eve') =>
    fresh.app.inject({
      method: 'POST',
      url: '/auth/setup',
      remoteAddress: from,
      headers: SAME_ORIGIN,
      payload: { token, username, password: 'correct horse' },
    });

  it('gives 40 wrong tokens sent 8 at a time exactly 10 tries, then refuses even the right one from that address', async () => {
    const token = (await offerSetupToken(fresh.accounts, { admins: fresh.accounts.settings.admins })) as string;
    const answers: LightMyRequestResponse[] = [];
    for (let wave = 0; wave < 5; wave++) answers.push(...(await burst(8, (i) => setup('203.0.113.9', `guess-${wave}-${i}`))));
    expect(withStatus(answers, 403).map((r) => r.json().code)).toEqual(Array(10).fill('invalid_setup_token'));
    expect(withStatus(answers, 429)).toHaveLength(30);
    expectRateLimited(withStatus(answers, 429), 900);

    const right = await setup('203.0.113.9', token, 'boss');
    expect([right.statusCode, right.json().code]).toEqual([429, 'too_many_requests']);
    const elsewhere = await setup('198.51.100.9', token, 'boss');
    expect(elsewhere.statusCode, elsewhere.body).toBe(200);
    const { rows } = await fresh.db.pool.query(`select provider_user_id from users where role = 'admin'`);
    expect(rows).toEqual([{ provider_user_id: 'boss' }]);
  });
});

describe('personal webhooks (5 a user)', () => {
  it('leaves a user exactly 5 webhooks after 8 adds at once; the other 3 are 409 webhook_limit_reached', async () => {
    const cookie = await caller('hooker');
    const answers = await burst(8, (i) => call('POST', '/api/user/webhooks', cookie, { url: `https://hooks.example.com/${i}` }));
    expect(withStatus(answers, 201)).toHaveLength(5);
    expect(withStatus(answers, 409).map((r) => r.json().code)).toEqual(Array(3).fill('webhook_limit_reached'));
    expect(withStatus(answers, 409).every((r) => r.headers['retry-after'] === undefined)).toBe(true);
    const { rows } = await kura.db.pool.query(`select count(*)::int as n from webhooks where owner = 'local/hooker'`);
    expect(rows[0].n).toBe(5);
  });
});

describe('test events (10 a minute per webhook)', () => {
  it('queues exactly 10 of 15 sent at once to one webhook and refuses 5 with 429 and Retry-After; another webhook is counted apart', async () => {
    const cookie = await caller('tester');
    const [first, second] = await Promise.all(
      ['a', 'b'].map(async (n) => (await call('POST', '/api/user/webhooks', cookie, { url: `https://hooks.example.com/test-${n}` })).json().id as string),
    );
    const answers = await burst(15, () => call('POST', `/api/user/webhooks/${first}/test`, cookie));
    expect(withStatus(answers, 202)).toHaveLength(10);
    expect(withStatus(answers, 429)).toHaveLength(5);
    expectRateLimited(withStatus(answers, 429), 60);
    const { rows } = await kura.db.pool.query(`select count(*)::int as n from webhook_deliveries where webhook_id = $1`, [first]);
    expect(rows[0].n).toBe(10);
    expect((await call('POST', `/api/user/webhooks/${second}/test`, cookie)).statusCode).toBe(202);
  });

  it("does not let another user spend a webhook's test events (404, not counted)", async () => {
    const [owner, stranger] = await Promise.all([caller('owner'), caller('stranger')]);
    const id = (await call('POST', '/api/user/webhooks', owner, { url: 'https://hooks.example.com/owned' })).json().id as string;
    const foreign = await burst(12, () => call('POST', `/api/user/webhooks/${id}/test`, stranger));
    expect(withStatus(foreign, 404)).toHaveLength(12);
    const own = await burst(10, () => call('POST', `/api/user/webhooks/${id}/test`, owner));
    expect(withStatus(own, 202)).toHaveLength(10);
  });
});

describe('webhook creation (30 a minute a caller)', () => {
  it('adds exactly 30 of 35 instance webhooks an admin adds at once and refuses 5 with 429 and Retry-After', async () => {
    const cookie = await caller('hookadmin', true);
    const answers = await burst(35, (i) => call('POST', '/api/webhooks', cookie, { url: `https://hooks.example.com/instance-${i}` }));
    expect(withStatus(answers, 201)).toHaveLength(30);
    expect(withStatus(answers, 429)).toHaveLength(5);
    expectRateLimited(withStatus(answers, 429), 60);
    const { rows } = await kura.db.pool.query(`select count(*)::int as n from webhooks where created_by = 'local/hookadmin'`);
    expect(rows[0].n).toBe(30);
  });
});

describe('follow creation (30 a minute an admin)', () => {
  it('adds exactly 30 of 35 follows an admin adds at once and refuses 5 with 429 and Retry-After', async () => {
    const cookie = await caller('followadmin', true);
    const answers = await burst(35, (i) => call('POST', '/api/follows', cookie, { url: `http://127.0.0.1:9/live-${i}/index.m3u8`, channel: `Channel ${i}` }));
    expect(withStatus(answers, 201)).toHaveLength(30);
    expect(withStatus(answers, 429)).toHaveLength(5);
    expectRateLimited(withStatus(answers, 429), 60);
    const { rows } = await kura.db.pool.query(`select count(*)::int as n from follows where created_by = 'local/followadmin'`);
    expect(rows[0].n).toBe(30);
  });
});

describe('API tokens (50 a user)', () => {
  it('creates exactly 50 of 60 tokens asked for at once; the other 10 are 409 token_limit_reached until one is revoked', async () => {
    const cookie = await caller('scripter');
    const answers = await burst(60, (i) => call('POST', '/api/tokens', cookie, { name: `script ${i}` }));
    expect(withStatus(answers, 201)).toHaveLength(50);
    const refused = withStatus(answers, 409);
    expect(refused.map((r) => r.json().code)).toEqual(Array(10).fill('token_limit_reached'));
    expect(refused.every((r) => r.headers['retry-after'] === undefined)).toBe(true);
    const listed = (await call('GET', '/api/tokens', cookie)).json() as Array<{ id: string }>;
    expect(listed).toHaveLength(50);

    expect((await call('DELETE', `/api/tokens/${listed[0]?.id}`, cookie)).statusCode).toBe(204);
    expect((await call('POST', '/api/tokens', cookie, { name: 'after revoking' })).statusCode).toBe(201);
    const fiftyFirst = await call('POST', '/api/tokens', cookie, { name: 'one too many' });
    expect([fiftyFirst.statusCode, fiftyFirst.json().code]).toEqual([409, 'token_limit_reached']);
  });
});

describe('the OpenAPI document', () => {
  it('declares each refusal the limited routes can answer, Retry-After on the 429s', async () => {
    const spec = (await kura.app.inject({ url: '/api/openapi.json' })).json();
    const responses = (path: string) => spec.paths[path].post.responses;
    for (const path of ['/auth/setup', '/api/webhooks', '/api/user/webhooks', '/api/user/webhooks/{id}/test', '/api/webhooks/{id}/test', '/api/follows']) {
      expect(responses(path)['429'].headers['retry-after'].schema, path).toMatchObject({ type: 'integer', minimum: 1 });
    }
    expect(responses('/api/tokens')['409'].description).toMatch(/token_limit_reached/);
    expect(responses('/api/user/webhooks')['409'].description).toMatch(/webhook_limit_reached/);
    expect(responses('/api/webhooks')['409']).toBeUndefined();
    expect(responses('/api/follows')['409'].description).toMatch(/already_followed/);
    expect(responses('/auth/setup')['409'].description).toMatch(/setup_done/);
  });
});
