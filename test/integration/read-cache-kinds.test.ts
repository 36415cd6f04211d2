import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangeFeed } from '../../src/shared/change-feed.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildRecord } from '../support/factories.js';

// The read cache on the real triggers (migration 0033): each notification names what changed, and
// only the answers that depend on it are dropped. A watch look notifies nothing at all.
let kura: TestApp;
/** Every payload the app's read cache heard, in order. */
const heard: Array<string | undefined> = [];
let heardChanged: () => void = () => undefined;
beforeEach(async () => {
  heard.length = 0;
  kura = await startTestApp(
    {},
    {},
    {
      appFeed: (real): ChangeFeed => {
        real.onChange((payload) => {
          heard.push(payload);
          heardChanged();
        });
        return real;
      },
    },
  );
});
afterEach(() => kura.close());

/** Resolves once the cache has heard `payload` (a notification the app's feed delivered). */
async function hears(payload: string): Promise<void> {
  while (!heard.includes(payload)) await new Promise<void>((resolve) => (heardChanged = resolve));
}

/** The read cache's results so far, from /metrics. */
async function cacheCounts(): Promise<Record<'hit' | 'miss' | 'bypass', number>> {
  const text = (await kura.app.inject({ url: '/metrics' })).body;
  const count = (result: string) => Number(new RegExp(`^kura_read_cache_requests_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  return { hit: count('hit'), miss: count('miss'), bypass: count('bypass') };
}

/** Whether a read was answered from the cache (a hit) or computed (a miss). */
async function answeredBy(url: string): Promise<'hit' | 'miss'> {
  const before = await cacheCounts();
  expect((await kura.app.inject({ url })).statusCode).toBe(200);
  const after = await cacheCounts();
  expect(after.bypass).toBe(before.bypass);
  return after.hit > before.hit ? 'hit' : 'miss';
}

const record = (id: string, hour: number) =>
  buildRecord({ id, channelId: 'UC-a', channelName: 'A', scheduledStart: new Date(Date.UTC(2025, 0, 1, hour)).toISOString(), fileSizeBytes: 1000, length: 60 });

/** A search document written as the worker's drain writes one: its triggers notify 'search'. */
const writeSearchDocument = (id: string) =>
  kura.db.pool.query(
    `insert into search_documents (id, document, title, channel_name, channel_id, status, finished, platform, scheduled_start_at)
     values ($1, '{}', 'Zebracorn night', 'A', 'UC-a', 'finished', true, 'youtube', now())`,
    [id],
  );

describe('the read cache, told what changed', () => {
  it('keeps the lists through a watch look and a search document, and drops them when a record changes', async () => {
    await kura.load([
      record('a1', 1),
      record('a2', 2),
      buildRecord({ id: 'soon1', status: 'upcoming', finished: false, scheduledStart: new Date(Date.now() + 3_600_000).toISOString() }),
    ]);
    await hears(''); // the records' own notification, before anything is cached
    heard.length = 0;
    for (const url of ['/api/history', '/api/stats', '/api/channels']) {
      expect(await answeredBy(url)).toBe('miss');
      expect(await answeredBy(url)).toBe('hit');
    }

    // a look at the upcoming record, then a search document: their notifications (if any) arrive in commit order
    await kura.db.watchLooks.note('soon1', { lookedAt: new Date(), reason: 'no segment yet', nextLookAt: new Date(Date.now() + 60_000) });
    await writeSearchDocument('doc1');
    await hears('search');
    expect(heard).toEqual(['search']);
    for (const url of ['/api/history', '/api/stats', '/api/channels']) expect(await answeredBy(url)).toBe('hit');

    // a record renamed: what lists records is computed again, with the new title
    await kura.db.livestreams.update('a2', { title: 'Renamed' });
    await hears('');
    expect(heard).toEqual(['search', '']);
    expect(await answeredBy('/api/history')).toBe('miss');
    expect((await kura.app.inject({ url: '/api/history' })).json()[0]).toMatchObject({ id: 'a2', title: 'Renamed' });
    expect(await answeredBy('/api/stats')).toBe('miss');
    expect(await answeredBy('/api/channels')).toBe('miss');
  });
});
