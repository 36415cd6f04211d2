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

describe('GET /api/queue?channelId=', () => {
  it("lists only that channel's upcoming and live records, soonest first, and an unknown channel's as empty", async () => {
    const of = (id: string, channelId: string, hours: number, extra: Parameters<typeof buildRecord>[0] = {}) =>
      buildRecord({ id, channelId, channelName: `${channelId} name`, finished: false, scheduledStart: inHours(hours), ...extra });
    await kura.load([
      of('qc-later', 'UC-queue-a', 4),
      of('qc-soon', 'UC-queue-a', 1),
      of('qc-done', 'UC-queue-a', 0.5, { finished: true }),
      of('qc-failed', 'UC-queue-a', 0.5, { status: 'failed' }),
      of('qc-other', 'UC-queue-b', 2),
    ]);
    const ids = async (query: string) => {
      const response = await kura.app.inject({ url: `/api/queue${query}` });
      expect(response.statusCode, query).toBe(200);
      return response.json().map((r: { id: string }) => r.id);
    };
    expect(await ids('?channelId=UC-queue-a')).toEqual(['qc-soon', 'qc-later']);
    expect(await ids('?channelId=UC-queue-b')).toEqual(['qc-other']);
    expect(await ids('?channelId=UC-nobody')).toEqual([]);
    // the whole queue is not mixed up with a channel's in the read cache
    expect(await ids('')).toEqual(expect.arrayContaining(['qc-soon', 'qc-later', 'qc-other']));
  });

  it('refuses an empty, overlong or NUL-carrying channel id with 400 invalid_parameter', async () => {
    for (const value of ['', 'x'.repeat(201), 'a%00b']) {
      const response = await kura.app.inject({ url: `/api/queue?channelId=${value}` });
      expect(response.statusCode, value.slice(0, 10)).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_parameter', detail: expect.stringContaining('channelId') });
    }
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
