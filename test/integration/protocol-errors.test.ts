import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, createToken, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { rawExchange, type Answer } from '../support/openapi-check.js';

// The refusals that happen around the routes: OPTIONS, requests Node's HTTP parser refuses,
// bodies of a type a route does not take. Each is problem JSON with a stable code.

let kura: TestApp;
let port: number;
let admin: Record<string, string>;

beforeAll(async () => {
  kura = await startTestApp();
  await addUser(kura, 'root', { admin: true });
  admin = { ...SAME_ORIGIN, authorization: `Bearer ${(await createToken(kura, await logIn(kura, 'root'))).token}` };
  await kura.app.listen({ port: 0, host: '127.0.0.1' });
  port = (kura.app.server.address() as AddressInfo).port;
});
afterAll(() => kura.close());

const PROBLEM_JSON = expect.stringMatching(/^application\/problem\+json; charset=utf-8$/);
const problemOf = (response: LightMyRequestResponse) => ({ status: response.statusCode, contentType: response.headers['content-type'], ...response.json() });
const problemOfAnswer = (answer: Answer) => ({ status: answer.status, contentType: answer.contentType, ...JSON.parse(answer.body) });

describe('OPTIONS', () => {
  it('answers a plain OPTIONS on a route 204 with the methods it allows, never 400 text/plain', async () => {
    const cases = [
      ['/api/history', 'GET, HEAD, OPTIONS'],
      ['/api/video/known-1', 'GET, HEAD, PATCH, DELETE, OPTIONS'],
      ['/api/follows/some-follow', 'GET, HEAD, PATCH, DELETE, OPTIONS'],
      ['/healthz?x=1', 'GET, HEAD, OPTIONS'],
    ];
    for (const [url, allow] of cases) {
      const response = await kura.app.inject({ method: 'OPTIONS', url });
      expect([response.statusCode, response.headers.allow, response.body], url).toEqual([204, allow, '']);
    }
    // an Origin alone (no Access-Control-Request-Method) is no preflight either
    const withOrigin = await kura.app.inject({ method: 'OPTIONS', url: '/api/stats', headers: { origin: 'https://viewer.example' } });
    expect([withOrigin.statusCode, withOrigin.headers.allow]).toEqual([204, 'GET, HEAD, OPTIONS']);
  });

  it('answers OPTIONS on a path that is no route 404 route_not_found', async () => {
    const response = await kura.app.inject({ method: 'OPTIONS', url: '/api/nothing-here' });
    expect(problemOf(response)).toMatchObject({ status: 404, contentType: PROBLEM_JSON, code: 'route_not_found' });
  });

  it('still answers a CORS preflight as a preflight', async () => {
    const headers = { origin: 'https://tool.example', 'access-control-request-method': 'PATCH' };
    const response = await kura.app.inject({ method: 'OPTIONS', url: '/api/follows/some-follow', headers });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PATCH, DELETE');
  });

  it('answers a preflight with CORS off 204 with Allow and no CORS header (the browser then refuses)', async () => {
    const closed = await startTestApp({ corsOrigins: [] });
    try {
      const headers = { origin: 'https://tool.example', 'access-control-request-method': 'GET' };
      const response = await closed.app.inject({ method: 'OPTIONS', url: '/api/history', headers });
      expect([response.statusCode, response.headers.allow, response.headers['access-control-allow-origin']]).toEqual([204, 'GET, HEAD, OPTIONS', undefined]);
    } finally {
      await closed.close();
    }
  });
});

describe("requests Node's HTTP parser refuses", () => {
  const request = (line: string, ...headers: string[]) => `${line}\r\n${['host: kura.test', 'connection: close', ...headers].join('\r\n')}\r\n\r\n`;

  it('answers each as problem JSON with a stable code, then closes the connection', async () => {
    const cases: Array<[string, string, number, string]> = [
      ['a NUL in a header', request('GET /api/history HTTP/1.1', 'x-probe: a\u0000b'), 400, 'invalid_header'],
      ['a control character in a header', request('GET /api/history HTTP/1.1', 'x-probe: a\u0001b'), 400, 'invalid_header'],
      ['headers over 16 KiB', request('GET /api/history HTTP/1.1', `x-probe: ${'y'.repeat(20_000)}`), 431, 'headers_too_large'],
      [
        'many headers over 16 KiB',
        request('GET /api/history HTTP/1.1', ...Array.from({ length: 400 }, (_, i) => `x-h${i}: ${'y'.repeat(50)}`)),
        431,
        'headers_too_large',
      ],
      ['a URL over 16 KiB', request(`GET /api/history?q=${'x'.repeat(20_000)} HTTP/1.1`), 414, 'url_too_long'],
      ['a path over 16 KiB', request(`GET /api/video/${'x'.repeat(20_000)} HTTP/1.1`), 414, 'url_too_long'],
      ['a NUL in the URL', request('GET /api/history\u0000 HTTP/1.1'), 400, 'malformed_request'],
      ['a method HTTP does not define', request('G@T /api/history HTTP/1.1'), 400, 'malformed_request'],
      ['a Content-Length that is no number', request('POST /api/submit HTTP/1.1', 'content-length: ten'), 400, 'malformed_request'],
    ];
    for (const [what, raw, status, code] of cases) {
      const answer = await rawExchange(port, raw);
      expect(problemOfAnswer(answer), what).toEqual({
        status,
        contentType: PROBLEM_JSON,
        type: 'about:blank',
        title: expect.any(String),
        detail: expect.stringMatching(/\.$/),
        code,
      });
    }
  });

  it('answers a fine request on the same server as usual', async () => {
    const answer = await rawExchange(port, request('GET /healthz HTTP/1.1'));
    expect([answer.status, JSON.parse(answer.body)]).toEqual([200, { status: 'ok' }]);
  });
});

describe('bodies', () => {
  const json = { 'content-type': 'application/json' };

  it('answers a text/plain body on a JSON route 415 unsupported_media_type naming application/json, even when it holds JSON', async () => {
    const response = await kura.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: { ...admin, 'content-type': 'text/plain' },
      payload: '{"name":"script"}',
    });
    expect(problemOf(response)).toMatchObject({
      status: 415,
      contentType: PROBLEM_JSON,
      code: 'unsupported_media_type',
      detail: 'POST /api/tokens takes a body of type application/json, not "text/plain".',
    });
  });

  it('reads text/plain as JSON on POST /api/submit alone (the original web client), and says so when refusing another type', async () => {
    const text = { ...admin, 'content-type': 'text/plain' };
    const empty = await kura.app.inject({ method: 'POST', url: '/api/submit', headers: text, payload: '' });
    expect(problemOf(empty)).toMatchObject({ status: 400, code: 'invalid_body', detail: expect.stringContaining('its Content-Type is text/plain') });
    const notAnObject = await kura.app.inject({ method: 'POST', url: '/api/submit', headers: text, payload: '"https://example.org/live"' });
    expect(problemOf(notAnObject)).toMatchObject({ status: 400, code: 'invalid_body' });
    const xml = await kura.app.inject({ method: 'POST', url: '/api/submit', headers: { ...admin, 'content-type': 'text/xml' }, payload: '<a/>' });
    expect(problemOf(xml).detail).toBe('POST /api/submit takes a body of type application/json or text/plain, not "text/xml".');
    const follows = await kura.app.inject({ method: 'POST', url: '/api/follows', headers: text, payload: '{}' });
    expect(problemOf(follows)).toMatchObject({ status: 415, code: 'unsupported_media_type' });
  });

  it('takes a form only where the document says so (the login), 415 elsewhere', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const tokens = await kura.app.inject({ method: 'POST', url: '/api/tokens', headers: { ...admin, ...form }, payload: 'name=script' });
    expect(problemOf(tokens)).toMatchObject({ status: 415, code: 'unsupported_media_type', detail: expect.stringContaining('application/json') });
    const login = await kura.app.inject({
      method: 'POST',
      url: '/auth/local',
      headers: { ...SAME_ORIGIN, ...form },
      payload: 'username=root&password=root-password',
    });
    expect([login.statusCode, login.headers.location]).toEqual([303, 'http://kura.test/']);
    const foreign = await kura.app.inject({ method: 'POST', url: '/auth/local', headers: { ...SAME_ORIGIN, 'content-type': 'text/xml' }, payload: '<a/>' });
    expect(problemOf(foreign).detail).toBe('POST /auth/local takes a body of type application/json or application/x-www-form-urlencoded, not "text/xml".');
  });

  it('says a route without a body reads none', async () => {
    const response = await kura.app.inject({ method: 'POST', url: '/auth/logout', headers: { ...SAME_ORIGIN, 'content-type': 'text/xml' }, payload: '<a/>' });
    expect(problemOf(response)).toMatchObject({
      status: 415,
      code: 'unsupported_media_type',
      detail: 'POST /auth/logout reads no request body; send none, not "text/xml".',
    });
  });

  it('answers a body over 1 MiB 413 payload_too_large', async () => {
    const response = await kura.app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: { ...admin, ...json },
      payload: `{"name":"${'x'.repeat(1_100_000)}"}`,
    });
    expect(problemOf(response)).toMatchObject({ status: 413, contentType: PROBLEM_JSON, code: 'payload_too_large' });
  });
});
