import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildRecord } from '../support/factories.js';

let kura: TestApp;
beforeAll(async () => {
  kura = await startTestApp();
});
afterAll(() => kura.close());

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

describe('GET /api/queue', () => {
  it('lists upcoming and live records soonest first, equal starts by id, without finished or failed ones', async () => {
    const tie = inHours(2);
    await kura.load([
      buildRecord({ id: 'q-later', finished: false, scheduledStart: inHours(5) }),
      buildRecord({ id: 'q-tie-b', finished: false, scheduledStart: tie }),
      buildRecord({ id: 'q-soonest', finished: false, scheduledStart: inHours(1) }),
      buildRecord({ id: 'q-tie-a', finished: false, scheduledStart: tie }),
      buildRecord({ id: 'q-done', finished: true, scheduledStart: inHours(0.5) }),
      buildRecord({ id: 'q-failed', finished: false, status: 'failed', scheduledStart: inHours(0.5) }),
    ]);
    const response = await kura.app.inject({ url: '/api/queue' });
    expect(response.statusCode).toBe(200);
    expect(response.json().map((r: { id: string }) => r.id)).toEqual(['q-soonest', 'q-tie-a', 'q-tie-b', 'q-later']);
  });
});

describe('GET /api/logz', () => {
  it('answers 404 capture_not_running when no capture runs, by default, by id or by url', async () => {
    await kura.load([buildRecord({ id: 'logz-upcoming', finished: false, scheduledStart: inHours(3) })]);
    for (const url of ['/api/logz', '/api/logz?id=logz-upcoming', `/api/logz?url=${encodeURIComponent('https://cdn.example/none/index.m3u8')}`]) {
      const response = await kura.app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expect(response.json(), url).toMatchObject({ status: 404, code: 'capture_not_running' });
    }
  });
});
