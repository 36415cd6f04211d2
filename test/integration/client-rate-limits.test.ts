import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearch } from '../../src/wiring/search.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';

// Routes cheap enough to be sent in bursts, but not free, are limited per client (issue 49): a
// stranger asked frame.jpg 485 times a second (1.3 cores) and sent searches that sort the whole
// index back to back. Each test's client is an address of its own, so no test counts another's.
let kura: TestApp;
beforeAll(async () => {
  // the built-in search engine (the test app has none by default)
  kura = await startTestApp({}, {}, { search: (db, feed) => createSearch({ search: { kind: 'builtin' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) });
});
afterAll(async () => {
  await kura?.close();
});

/** `count` requests from `ip`, in bursts of 50; the status codes answered, in order. */
async function burst(count: number, ip: string, request: { method?: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: object }) {
  const statuses: number[] = [];
  for (let sent = 0; sent < count; sent += 50) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(50, count - sent) }, () => kura.app.inject({ ...request, method: request.method ?? 'GET', remoteAddress: ip })),
    );
    statuses.push(...answers.map((answer) => answer.statusCode));
  }
  return statuses;
}

describe('per-client limits', () => {
  it('answers a client past 600 frame requests a minute 429 too_many_requests with Retry-After; another client is answered as before', async () => {
    const url = '/api/video/kNoSuchRec1/frame.jpg';
    const statuses = await burst(600, '198.51.100.7', { url });
    expect(new Set(statuses)).toEqual(new Set([404])); // no such record, asked 600 times
    const refused = await kura.app.inject({ url, remoteAddress: '198.51.100.7' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'too_many_requests', detail: expect.stringMatching(/^Too many frame requests: at most 600 per 60 s/) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await kura.app.inject({ url, remoteAddress: '198.51.100.8' })).statusCode).toBe(404);
  });

  it("answers a client past 300 searches a minute in Meilisearch's format (429 too_many_search_requests, Retry-After)", async () => {
    const access = (await kura.app.inject({ url: '/api/search' })).json() as { apiKey: string; index: string };
    const search = {
      method: 'POST' as const,
      url: '/api/search-engine/multi-search',
      headers: { authorization: `Bearer ${access.apiKey}` },
      payload: { queries: [{ indexUid: access.index, q: '' }] },
    };
    const statuses = await burst(300, '198.51.100.9', search);
    expect(new Set(statuses)).toEqual(new Set([200]));
    const refused = await kura.app.inject({ ...search, remoteAddress: '198.51.100.9' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'too_many_search_requests', type: 'system', message: expect.stringMatching(/^Too many search requests/) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await kura.app.inject({ ...search, remoteAddress: '198.51.100.10' })).statusCode).toBe(200);
  });
});
