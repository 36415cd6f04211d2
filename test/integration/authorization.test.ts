import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { buildRecord } from '../support/factories.js';

let kura: TestApp;
let admin: string;
let user: string;
beforeAll(async () => {
  kura = await startTestApp();
  await addUser(kura, 'root', { admin: true });
  await addUser(kura, 'viewer');
  [admin, user] = await Promise.all([logIn(kura, 'root'), logIn(kura, 'viewer')]);
  await kura.load([buildRecord({ id: 'waiting1', finished: false, status: 'upcoming' })]);
});
afterAll(() => kura.close());

type Method = 'GET' | 'POST' | 'DELETE';
/** Bodies no route accepts: the wrong shape, JSON that does not parse, a type no parser takes. */
const BAD_BODIES = [
  { what: 'a body of the wrong shape', payload: '{"reason":"","videoUrl":7,"name":""}', type: 'application/json' },
  { what: 'JSON that does not parse', payload: '{"reason":', type: 'application/json' },
  { what: 'a content type Kura does not read', payload: 'reason', type: 'text/csv' },
];
const LOGIN_ROUTES: Array<[Method, string]> = [
  ['POST', '/api/submit'],
  ['POST', '/api/tokens'],
  ['GET', '/api/tokens'],
  ['DELETE', '/api/tokens/not-a-token-id'],
  ['GET', '/api/user'],
];
const ADMIN_ROUTES: Array<[Method, string]> = [
  ['DELETE', '/api/video/waiting1'],
  ['POST', '/api/video/waiting1/cancel'],
  ['POST', '/api/video/waiting1/retry'],
  ['DELETE', '/api/video/not!an!id'],
];

const send = (method: Method, url: string, cookie: string | undefined, body?: (typeof BAD_BODIES)[number]) =>
  kura.app.inject({
    method,
    url,
    headers: { ...SAME_ORIGIN, ...(cookie ? { cookie } : {}), ...(body && method !== 'GET' ? { 'content-type': body.type } : {}) },
    ...(body && method !== 'GET' ? { payload: body.payload } : {}),
  });

describe('authorization comes before the request is judged', () => {
  it.each([...LOGIN_ROUTES, ...ADMIN_ROUTES])('%s %s answers an anonymous caller 401 not_logged_in, whatever its body', async (method, url) => {
    for (const body of BAD_BODIES) {
      const response = await send(method, url, undefined, body);
      expect([response.statusCode, response.json().code], body.what).toEqual([401, 'not_logged_in']);
    }
  });

  it.each(ADMIN_ROUTES)('%s %s answers a logged-in non-admin 403 admin_only, whatever its body', async (method, url) => {
    for (const body of BAD_BODIES) {
      const response = await send(method, url, user, body);
      expect([response.statusCode, response.json().code], body.what).toEqual([403, 'admin_only']);
    }
  });

  it('judges the body of an admin once authorized: 400 for a bad one, and a valid request does what it says', async () => {
    const bad = await send('POST', '/api/video/waiting1/cancel', admin, BAD_BODIES[0]);
    expect([bad.statusCode, bad.json().code]).toEqual([400, 'invalid_body']);
    const cancelled = await kura.app.inject({
      method: 'POST',
      url: '/api/video/waiting1/cancel',
      headers: { ...SAME_ORIGIN, cookie: admin },
      payload: { reason: 'never scheduled' },
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toMatchObject({ id: 'waiting1', status: 'failed' });
  });

  it('judges the body of a logged-in user on the routes any user may call', async () => {
    const bad = await send('POST', '/api/tokens', user, BAD_BODIES[0]);
    expect([bad.statusCode, bad.json().code]).toEqual([400, 'invalid_body']);
    expect((await kura.app.inject({ url: '/api/user', headers: { cookie: user } })).json()).toMatchObject({ name: 'viewer' });
  });
});
