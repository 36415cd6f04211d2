import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
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
    const cases = [['POST', '/api/history', 'GET, HEAD'], ['DELETE', '/api/stats', 'GET, HEAD'], ['PUT', '/api/video/known-1', 'GET, HEAD, DELETE'], ['PATCH', '/healthz', 'GET, HEAD']] as const;
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
