import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearch } from '../../src/wiring/search.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { buildRecord } from '../support/factories.js';

let kura: TestApp;
beforeAll(async () => {
  kura = await startTestApp();
  await kura.load([buildRecord({ id: 'known-1', submitters: ['discord/1', 'local/alice'] })]);
});
afterAll(() => kura.close());

const problemOf = (response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) => {
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  return response.json() as Record<string, unknown>;
};

describe('problem JSON for every error', () => {
  it('answers unknown routes 404 route_not_found', async () => {
    for (const url of ['/api/nope', '/nothing/here', '/api/history/extra']) {
      const response = await kura.app.inject({ url });
      expect(response.statusCode).toBe(404);
      expect(problemOf(response)).toEqual({
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        detail: expect.stringContaining(url),
        code: 'route_not_found',
      });
    }
  });

  it('answers a known route with the wrong method 405 with an Allow header', async () => {
    const cases = [
      ['POST', '/api/history', 'GET, HEAD'],
      ['DELETE', '/api/stats', 'GET, HEAD'],
      ['PUT', '/api/video/known-1', 'GET, HEAD, PATCH, DELETE'],
      ['PATCH', '/healthz', 'GET, HEAD'],
    ] as const;
    for (const [method, url, allow] of cases) {
      const response = await kura.app.inject({ method, url });
      expect(response.statusCode, `${method} ${url}`).toBe(405);
      expect(response.headers.allow).toBe(allow);
      expect(problemOf(response)).toMatchObject({ status: 405, code: 'method_not_allowed', title: 'Method Not Allowed' });
    }
  });

  it('answers an unknown record 404 and a malformed id 400', async () => {
    const unknown = await kura.app.inject({ url: '/api/video/does-not-exist' });
    expect(unknown.statusCode).toBe(404);
    expect(problemOf(unknown)).toMatchObject({ code: 'livestream_not_found', status: 404 });
    const malformed = await kura.app.inject({ url: `/api/video/${'x'.repeat(65)}` });
    expect(malformed.statusCode).toBe(400);
    expect(problemOf(malformed)).toMatchObject({ code: 'invalid_parameter', detail: expect.stringContaining('"id"') });
  });

  it('never answers 500 to malformed requests', async () => {
    const attempts = [
      { url: '/api/history?page=%zz' },
      { url: '/api/history?sort=%E0%A4%A' },
      { url: '/api/video/%00' },
      { url: '/api/history', method: 'POST' as const, payload: '{bad json', headers: { 'content-type': 'application/json' } },
    ];
    for (const attempt of attempts) {
      const response = await kura.app.inject(attempt);
      expect(response.statusCode, attempt.url).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, attempt.url).toBeLessThan(500);
      expect(problemOf(response).code).toMatch(/^[a-z_]+$/);
    }
  });
});

describe('GET /api/video/{id}', () => {
  it('returns the record with its capture details and submitters in order', async () => {
    const response = await kura.app.inject({ url: '/api/video/known-1' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: 'known-1',
      submitters: ['discord/1', 'local/alice'],
      finished: true,
      status: 'finished',
      failureReason: null,
      downloads: 0,
      sha256: null,
      createdAt: expect.stringMatching(/Z$/),
    });
  });
});

describe('an unexpected error', () => {
  it('is answered 500 internal_error without internals, and logged with its stack', async () => {
    const lines: string[] = [];
    const broken = await startTestApp({ logLevel: 'error', logStream: { write: (line) => void lines.push(line) } });
    try {
      // a schema the code does not expect: PostgreSQL's error is no AppError
      await broken.db.pool.query('alter table livestream_totals rename to livestream_totals_elsewhere');
      const response = await broken.app.inject({ url: '/api/stats' });
      expect(response.statusCode).toBe(500);
      const problem = problemOf(response);
      expect(problem).toEqual({
        type: 'about:blank',
        title: 'Internal Server Error',
        status: 500,
        code: 'internal_error',
        detail: 'Kura failed to answer this request; the error is in its log.',
      });
      expect(response.body).not.toMatch(/livestream_totals|relation|at .*\.ts/);
      const logged = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'request failed');
      expect(logged?.err?.message).toContain('livestream_totals');
      expect(logged?.err?.stack).toMatch(/\n\s+at /);
    } finally {
      await broken.close();
    }
  });
});

describe('search_unavailable', () => {
  it('answers GET /api/search 503 search_unavailable while Meilisearch cannot be reached', async () => {
    // port 1 on loopback: nothing listens there
    const config = { kind: 'meilisearch' as const, url: 'http://127.0.0.1:1', publicUrl: 'https://search.example.org', adminKey: 'admin-key' };
    const away = await startTestApp({}, {}, { search: (db, feed) => createSearch({ search: config, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) });
    try {
      const response = await away.app.inject({ url: '/api/search' });
      expect(response.statusCode, response.body).toBe(503);
      expect(problemOf(response)).toMatchObject({ status: 503, code: 'search_unavailable' });
      expect(response.body).not.toContain('admin-key');
    } finally {
      await away.close();
    }
  });
});
