import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';

let kura: TestApp;
let admin: string;
beforeEach(async () => {
  kura = await startTestApp();
  await addUser(kura, 'root', { admin: true });
  admin = await logIn(kura, 'root');
});
afterEach(() => kura.close());

async function follow(channel: string): Promise<string> {
  const response = await kura.app.inject({
    method: 'POST',
    url: '/api/follows',
    headers: { ...SAME_ORIGIN, cookie: admin },
    payload: { url: `http://127.0.0.1:9/${channel}/index.m3u8`, channel },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().id;
}

const metric = (body: string, name: string) => new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(body)?.[1];

describe('/metrics: follows', () => {
  it('counts the follows by health (an hour of failing signals is unhealthy) and sums what they queued', async () => {
    const [, failing, unhealthy, paused] = [await follow('fine'), await follow('failing'), await follow('unhealthy'), await follow('paused')];
    const setFailing = (id: string, minutesAgo: number, queued: number) =>
      kura.db.pool.query(`update follows set failing_since = now() - make_interval(mins => $2), queued_count = $3 where id = $1`, [id, minutesAgo, queued]);
    await setFailing(failing, 5, 2);
    await setFailing(unhealthy, 61, 5);
    const pause = await kura.app.inject({
      method: 'PATCH',
      url: `/api/follows/${paused}`,
      headers: { ...SAME_ORIGIN, cookie: admin },
      payload: { paused: true },
    });
    expect(pause.statusCode).toBe(200);

    const body = (await kura.app.inject({ url: '/metrics' })).body;
    expect(body).toContain('# TYPE kura_follows gauge');
    expect(metric(body, 'kura_follows{health="ok"}')).toBe('1');
    expect(metric(body, 'kura_follows{health="failing"}')).toBe('1');
    expect(metric(body, 'kura_follows{health="unhealthy"}')).toBe('1');
    expect(metric(body, 'kura_follows{health="paused"}')).toBe('1');
    expect(metric(body, 'kura_follow_queued')).toBe('7');

    // the API agrees with the gauge on which one is flagged
    const listed = (await kura.app.inject({ url: '/api/follows' })).json() as Array<{ id: string; health: string }>;
    expect(listed.find((f) => f.id === unhealthy)?.health).toBe('unhealthy');

    // an unhealthy follow whose signal answers again is counted ok at the next scrape
    await kura.db.pool.query('update follows set failing_since = null where id = $1', [unhealthy]);
    const again = (await kura.app.inject({ url: '/metrics' })).body;
    expect(metric(again, 'kura_follows{health="unhealthy"}')).toBe('0');
    expect(metric(again, 'kura_follows{health="ok"}')).toBe('2');
  });
});
