import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, createToken, logIn } from '../support/accounts.js';
import { buildRecord } from '../support/factories.js';

// The front door (decision 0117) on a listening app: anonymous GETs the read cache holds are
// answered before routing, byte for byte as the route answers them, and nothing else is.
let kura: TestApp;
let base: string;
beforeEach(async () => {
  kura = await startTestApp();
  base = await kura.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(() => kura.close());

/** How many requests the front door has answered, from /metrics. */
async function doorAnswers(): Promise<number> {
  const text = (await kura.app.inject({ url: '/metrics' })).body;
  return Number(/^kura_front_door_answers_total (\d+)$/m.exec(text)?.[1]);
}

/** A GET over HTTP: its status, headers (but the date) and body, and whether the front door answered it. */
async function get(url: string, headers: Record<string, string> = {}, method = 'GET') {
  const before = await doorAnswers();
  const response = await fetch(`${base}${url}`, { method, headers });
  const sent = Object.fromEntries([...response.headers].filter(([name]) => name !== 'date'));
  const body = await response.text();
  return { status: response.status, headers: sent, body, atTheDoor: (await doorAnswers()) > before };
}

const record = (id: string, hour: number) =>
  buildRecord({ id, channelId: 'UC-a', channelName: 'A', scheduledStart: new Date(Date.UTC(2025, 0, 1, hour)).toISOString(), fileSizeBytes: 1000, length: 60 });

describe('the front door', () => {
  it('answers an anonymous read the cache holds with the status, headers and body the route sent', async () => {
    await kura.load([record('a1', 1), record('a2', 2), record('a3', 3)]);
    const routed = await get('/api/history?limit=2');
    expect(routed).toMatchObject({ status: 200, atTheDoor: false });
    expect(routed.headers['x-kura-pagination-total']).toBe('3');
    const again = await get('/api/history?limit=2');
    expect(again).toEqual({ ...routed, atTheDoor: true });
    // a URL the route answers from the same entry, written differently, is routed once too
    expect((await get('/api/history?limit=2&_=1')).atTheDoor).toBe(false);
    expect(await get('/api/history?limit=2&_=1')).toEqual({ ...routed, atTheDoor: true });
    const metrics = (await kura.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/^kura_http_request_duration_seconds_count\{method="GET",route="\/api\/history",status_code="200"\} 4$/m);
  });

  it('answers what a change made, once the change is heard', async () => {
    await kura.load([record('a1', 1)]);
    await get('/api/stats');
    const before = await get('/api/stats');
    expect(before).toMatchObject({ atTheDoor: true });
    await kura.load([record('a2', 2)]);
    const after = await get('/api/stats');
    expect(after.atTheDoor).toBe(false);
    expect(JSON.parse(after.body).videoAmount).toBe(JSON.parse(before.body).videoAmount + 1);
    expect(await get('/api/stats')).toEqual({ ...after, atTheDoor: true });
  });

  it('leaves a caller with credentials, a cross-origin request and HEAD to the route', async () => {
    await addUser(kura, 'root', { admin: true });
    const cookie = await logIn(kura, 'root');
    const { token } = await createToken(kura, cookie);
    await get('/api/stats');
    expect((await get('/api/stats')).atTheDoor).toBe(true);

    const asAdmin = await get('/api/stats', { cookie });
    expect(asAdmin.atTheDoor).toBe(false);
    expect(JSON.parse(asAdmin.body)).toHaveProperty('disk');
    const withToken = await get('/api/stats', { authorization: `Bearer ${token}` });
    expect(withToken.atTheDoor).toBe(false);
    expect(JSON.parse(withToken.body)).toHaveProperty('disk');
    const crossOrigin = await get('/api/stats', { origin: 'https://elsewhere.example' });
    expect(crossOrigin).toMatchObject({ status: 200, atTheDoor: false });
    expect(crossOrigin.headers['access-control-allow-origin']).toBe('*');
    expect(await get('/api/stats', {}, 'HEAD')).toMatchObject({ status: 200, atTheDoor: false });
  });
});
