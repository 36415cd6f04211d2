// Decisions: docs/decisions/0002-one-check-of-raw-input.md
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { startProbedApp } from '../support/probed-app.js';
import { addUser, createToken, logIn, SAME_ORIGIN } from '../support/accounts.js';

// Every operation of the OpenAPI document (so a new route is covered the day it is added), each
// with hostile values in each of its parameters and bodies: the answer is always a 4xx with a
// stable code, problem JSON (Meilisearch's format under the search engine), never a 500.

type Schema = { type?: string; properties?: Record<string, Schema>; anyOf?: Schema[]; $ref?: string };
interface Operation {
  parameters?: Array<{ name: string; in: 'path' | 'query' | 'header' | 'cookie'; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface Attempt extends InjectOptions {
  method: NonNullable<InjectOptions['method']>;
  url: string;
}

let kura: TestApp;
let spec: { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };
let adminToken: string;
let searchKey: string;

beforeAll(async () => {
  kura = await startProbedApp();
  await addUser(kura, 'root', { admin: true });
  adminToken = (await createToken(kura, await logIn(kura, 'root'))).token;
  searchKey = (await kura.app.inject({ url: '/api/search' })).json().apiKey;
  spec = (await kura.app.inject({ url: '/api/openapi.json' })).json();
});
afterAll(() => kura.close());

const HOSTILE_PATH_VALUES = ['%00', 'a%00b', '%FF', '%E0%A4%A', 'x'.repeat(101), 'x'.repeat(201), '%20', '..%2F..', '-Infinity'];
const HOSTILE_QUERY_VALUES = ['%00', 'a%00b', 'Infinity', '-Infinity', '-1e400', '0x10', '1e3', '%205', '5.0', '', '%FF', 'x'.repeat(4000), '1&$=2'];
const BENIGN_PATH: Record<string, string> = { id: 'known-1', type: 'video', uid: 'kura', provider: 'local' };

const isSearchEngine = (url: string) => url.startsWith('/api/search-engine/');
const authHeaders = (url: string) => ({ ...SAME_ORIGIN, authorization: `Bearer ${isSearchEngine(url) ? searchKey : adminToken}` });

function resolve(schema: Schema): Schema {
  if (schema.$ref === undefined) return schema;
  return spec.components?.schemas?.[schema.$ref.split('/').pop() ?? ''] ?? {};
}

/** The hostile requests for one operation: one hostile value at a time, the rest benign. */
function attemptsFor(path: string, method: string, operation: Operation): Attempt[] {
  const params = operation.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name);
  const urlWith = (hostile: Record<string, string> = {}) => path.replace(/\{(\w+)\}/g, (_, name: string) => hostile[name] ?? BENIGN_PATH[name] ?? 'x');
  const verb = method.toUpperCase() as Attempt['method'];
  const attempts: Attempt[] = [];
  for (const name of pathParams) for (const value of HOSTILE_PATH_VALUES) attempts.push({ method: verb, url: urlWith({ [name]: value }) });
  for (const query of params.filter((p) => p.in === 'query')) {
    for (const value of HOSTILE_QUERY_VALUES) attempts.push({ method: verb, url: `${urlWith()}?${query.name}=${value}` });
  }
  const body = operation.requestBody?.content['application/json']?.schema;
  if (body !== undefined) attempts.push(...hostileBodies(verb, urlWith(), resolve(body)));
  return attempts;
}

function hostileBodies(method: Attempt['method'], url: string, schema: Schema): Attempt[] {
  const json = (payload: string, type = 'application/json'): Attempt => ({ method, url, payload, headers: { 'content-type': type } });
  const attempts = [
    json(''),
    json('null'),
    json('[]'),
    json('"text"'),
    json('42'),
    json('{bad json'),
    json('{"a":'),
    json(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
    json(`{"pad":"${'x'.repeat(1_100_000)}"}`),
    json('<xml/>', 'text/xml'),
  ];
  for (const [field, property] of Object.entries(schema.properties ?? {})) {
    const types = [property.type, ...(property.anyOf ?? []).map((p) => p.type)];
    if (types.includes('string')) {
      attempts.push(json(JSON.stringify({ [field]: 'a\u0000b' })), json(JSON.stringify({ [field]: ['\u0000'] })));
      attempts.push(json(`${field}=a%00b`, 'application/x-www-form-urlencoded'));
    }
    if (types.includes('integer') || types.includes('number')) attempts.push(json(`{"${field}": 1e400}`), json(`{"${field}": -1e400}`));
    // a fraction is hostile only where a whole number is asked (retention's maxGb takes 0.5)
    if (types.includes('integer') && !types.includes('number')) attempts.push(json(`{"${field}": 0.5}`));
  }
  attempts.push(json(JSON.stringify({ 'key\u0000': 'value' })), json(JSON.stringify({ nested: { deeper: ['\u0000'] } })));
  return attempts;
}

/** Asserts the answer refuses the request in the route's own error format, with a stable code. */
function expectRefusal(attempt: Attempt, response: LightMyRequestResponse): void {
  const what = `${attempt.method} ${attempt.url.slice(0, 120)} ${String(attempt.payload ?? '').slice(0, 60)} → ${response.statusCode} ${response.body.slice(0, 200)}`;
  expect(response.statusCode, what).toBeGreaterThanOrEqual(400);
  expect(response.statusCode, what).toBeLessThan(500);
  const body = response.json() as Record<string, unknown>;
  if (isSearchEngine(attempt.url)) {
    expect(response.headers['content-type'], what).toMatch(/^application\/json/);
    expect(Object.keys(body).sort(), what).toEqual(['code', 'link', 'message', 'type']);
    expect(body.type, what).not.toBe('internal');
  } else {
    expect(response.headers['content-type'], what).toMatch(/^application\/problem\+json/);
    expect(body, what).toMatchObject({ type: 'about:blank', status: response.statusCode, detail: expect.any(String) });
  }
  expect(body.code, what).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  expect(body.code, what).not.toMatch(/^internal/);
}

describe('hostile input over every route of the OpenAPI document', () => {
  it('covers every documented operation, the search engine and the health routes among them', () => {
    const operations = Object.entries(spec.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    expect(operations.length).toBeGreaterThan(35);
    expect(operations).toEqual(
      expect.arrayContaining([
        'get /api/history',
        'post /api/search-engine/multi-search',
        'get /readyz',
        'delete /api/video/{id}',
        'post /api/follows',
        'patch /api/follows/{id}',
        'get /feeds/archives.atom',
        'get /feeds/queue.atom',
      ]),
    );
  });

  it('answers every hostile path, query and body with a 4xx and a stable code, never a 500', async () => {
    let count = 0;
    for (const [path, operations] of Object.entries(spec.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const attempt of attemptsFor(path, method, operation)) {
          const response = await kura.app.inject({ ...attempt, headers: { ...authHeaders(attempt.url), ...attempt.headers } });
          // a value that is still a fine request (any text is a search word, or a URL to check) may succeed
          if (response.statusCode < 400 && !attempt.url.includes('%00') && attempt.payload === undefined) continue;
          expectRefusal(attempt, response);
          count++;
        }
      }
    }
    expect(count).toBeGreaterThan(400);
    // nothing hostile was written: the records and the admin's single token are as they were
    expect((await kura.app.inject({ url: '/api/video/known-1' })).statusCode).toBe(200);
    expect((await kura.app.inject({ url: '/api/tokens', headers: authHeaders('/api/tokens') })).json()).toHaveLength(1);
  });

  it('answers the routes the document leaves out (web pages, the search engine catch-all) the same way', async () => {
    const attempts: Attempt[] = [
      ...['%00', '%FF', 'x'.repeat(201)].map((id) => ({ method: 'GET' as const, url: `/archive/${id}` })),
      { method: 'POST', url: '/api/search-engine/indexes/kura/documents', payload: '{"id":"\u0000"}', headers: { 'content-type': 'application/json' } },
      { method: 'GET', url: '/api/search-engine/keys/%FF' },
      { method: 'GET', url: `/api/search-engine/indexes/${'x'.repeat(101)}` },
    ];
    for (const attempt of attempts) {
      expectRefusal(attempt, await kura.app.inject({ ...attempt, headers: { ...authHeaders(attempt.url), ...attempt.headers } }));
    }
  });
});

const problem = (response: LightMyRequestResponse) => ({
  status: response.statusCode,
  contentType: response.headers['content-type'],
  ...(response.json() as object),
});
const PROBLEM_JSON = expect.stringMatching(/^application\/problem\+json/);
const MEILI_JSON = expect.stringMatching(/^application\/json/);

describe('the requests of the probe, each answered as the contract says', () => {
  it('refuses page and limit not written as plain decimal numbers, or out of range, with invalid_parameter naming them', async () => {
    const refused = [
      'page=Infinity',
      'page=-Infinity',
      'limit=-Infinity',
      'limit=-1e400',
      'page=0x10',
      'page=1e3',
      'page=%205',
      'page=5.0',
      'page=+5',
      'page=-1',
      'page=10000001',
      'limit=0',
      'limit=1234567890123456',
    ];
    for (const query of refused) {
      const response = await kura.app.inject({ url: `/api/history?${query}` });
      expect(problem(response), query).toMatchObject({
        status: 400,
        contentType: PROBLEM_JSON,
        code: 'invalid_parameter',
        detail: expect.stringContaining(`"${query.split('=')[0]}"`),
      });
    }
    for (const query of ['page=10000000', 'page=0', 'page=007', 'limit=101', 'limit=1']) {
      expect((await kura.app.inject({ url: `/api/history?${query}` })).statusCode, query).toBe(200);
    }
  });

  it('refuses a NUL in a query, a path or a body with 400 before PostgreSQL sees it', async () => {
    const cases: Array<[Attempt, string]> = [
      [{ method: 'GET', url: '/api/logz?url=%00' }, 'invalid_parameter'],
      [{ method: 'GET', url: '/api/user/local/%00' }, 'invalid_parameter'],
      [{ method: 'POST', url: '/api/tokens', payload: { name: 'a\u0000b' } }, 'invalid_body'],
    ];
    for (const [attempt, code] of cases) {
      const response = await kura.app.inject({ ...attempt, headers: authHeaders(attempt.url) });
      expect(problem(response), attempt.url).toMatchObject({ status: 400, contentType: PROBLEM_JSON, code, detail: expect.stringContaining('NUL') });
    }
    expect((await kura.app.inject({ url: '/api/tokens', headers: authHeaders('/api/tokens') })).json()).toHaveLength(1);
  });

  it("refuses a NUL in the search engine's q (GET, POST, multi-search) as Meilisearch would, invalid_search_q", async () => {
    const attempts: Attempt[] = [
      { method: 'GET', url: '/api/search-engine/indexes/kura/search?q=a%00b' },
      { method: 'POST', url: '/api/search-engine/indexes/kura/search', payload: { q: 'a\u0000b' } },
      {
        method: 'POST',
        url: '/api/search-engine/multi-search',
        payload: {
          queries: [
            { indexUid: 'kura', q: 'ok' },
            { indexUid: 'kura', q: '\u0000' },
          ],
        },
      },
    ];
    for (const attempt of attempts) {
      const response = await kura.app.inject({ ...attempt, headers: authHeaders(attempt.url) });
      expect(problem(response), attempt.url).toMatchObject({
        status: 400,
        contentType: MEILI_JSON,
        code: 'invalid_search_q',
        type: 'invalid_request',
        message: expect.stringContaining('NUL'),
      });
    }
  });

  it("answers Fastify's own refusals as problem JSON with a stable code and a sentence a person reads", async () => {
    const json = { 'content-type': 'application/json' };
    const cases: Array<[Attempt, number, string, RegExp]> = [
      [{ method: 'GET', url: '/api/video/%FF' }, 400, 'malformed_url', /percent-encoded UTF-8/],
      [{ method: 'GET', url: `/api/video/${'a'.repeat(201)}` }, 414, 'path_parameter_too_long', /longer than 200 characters/],
      [{ method: 'POST', url: '/api/submit', payload: '', headers: json }, 400, 'invalid_body', /body is empty/],
      [{ method: 'POST', url: '/api/submit', payload: '[1]', headers: json }, 400, 'invalid_body', /^The request body must be a JSON object\.$/],
      [{ method: 'POST', url: '/api/submit' }, 400, 'invalid_body', /^The request body must be a JSON object\.$/],
      [{ method: 'POST', url: '/api/submit', payload: '{"videoUrl":', headers: json }, 400, 'malformed_json', /not valid JSON/],
      [{ method: 'POST', url: '/api/submit', payload: '<a/>', headers: { 'content-type': 'text/xml' } }, 415, 'unsupported_media_type', /"text\/xml"/],
      [{ method: 'POST', url: '/api/submit', payload: `{"videoUrl":"${'x'.repeat(1_100_000)}"}`, headers: json }, 413, 'payload_too_large', /larger than/],
    ];
    for (const [attempt, status, code, detail] of cases) {
      const response = await kura.app.inject({ ...attempt, headers: { ...authHeaders(attempt.url), ...attempt.headers } });
      expect(problem(response), `${attempt.url.slice(0, 40)} ${String(attempt.payload).slice(0, 20)}`).toMatchObject({
        status,
        contentType: PROBLEM_JSON,
        code,
        detail: expect.stringMatching(detail),
      });
    }
  });

  it("answers the same refusals under the search engine in Meilisearch's format and codes", async () => {
    const url = '/api/search-engine/indexes/kura/search';
    const json = { 'content-type': 'application/json' };
    const cases: Array<[Attempt, number, string]> = [
      [{ method: 'GET', url: '/api/search-engine/indexes/%FF' }, 400, 'bad_request'],
      [{ method: 'POST', url, payload: '', headers: json }, 400, 'missing_payload'],
      [{ method: 'POST', url, payload: '{"q":', headers: json }, 400, 'malformed_payload'],
      [{ method: 'POST', url, payload: '[]', headers: json }, 400, 'bad_request'],
      [{ method: 'POST', url, payload: '<q/>', headers: { 'content-type': 'application/xml' } }, 415, 'invalid_content_type'],
      [{ method: 'POST', url, payload: `{"q":"${'x'.repeat(1_100_000)}"}`, headers: json }, 413, 'payload_too_large'],
      [{ method: 'POST', url, payload: '{"limit": 1e400}', headers: json }, 400, 'invalid_search_limit'],
    ];
    for (const [attempt, status, code] of cases) {
      const response = await kura.app.inject({ ...attempt, headers: { ...authHeaders(attempt.url), ...attempt.headers } });
      expect(problem(response), `${attempt.url} ${String(attempt.payload).slice(0, 20)}`).toMatchObject({
        status,
        contentType: MEILI_JSON,
        code,
        link: `https://docs.meilisearch.com/errors#${code}`,
      });
    }
  });

  it('answers 409 archive_not_ready for the video of an imported record that is not finished, 307 once it is', async () => {
    const upcoming = await kura.app.inject({ url: '/api/download/imported-upcoming/video' });
    expect(problem(upcoming)).toMatchObject({ status: 409, contentType: PROBLEM_JSON, code: 'archive_not_ready' });
    const finished = await kura.app.inject({ url: '/api/download/known-1/video' });
    expect([finished.statusCode, finished.headers.location]).toEqual([307, 'https://archive.example.org/known-1.mp4']);
  });
});
