import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangeFeed } from '../../src/shared/change-feed.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { buildRecord } from '../support/factories.js';

/**
 * The change feed as the app's read cache sees it, with every notification held until `release`:
 * the few milliseconds a notification takes to arrive, stretched so the test can act inside them.
 */
function heldFeed(real: ChangeFeed) {
  const listeners: Array<(payload?: string) => void> = [];
  let held = 0;
  real.onChange(() => (held += 1));
  const feed: ChangeFeed = {
    get connected() {
      return real.connected;
    },
    onChange: (listener) => listeners.push(listener),
  };
  const release = () => {
    for (; held > 0; held -= 1) listeners.forEach((listener) => listener(''));
  };
  return { feed, release };
}

let kura: TestApp;
let release: () => void;
beforeEach(async () => {
  kura = await startTestApp(
    {},
    {},
    {
      appFeed: (real) => {
        const held = heldFeed(real);
        release = held.release;
        return held.feed;
      },
    },
  );
});
afterEach(() => kura.close());

const record = (id: string, hour: number) =>
  buildRecord({ id, channelId: 'UC-a', channelName: 'A', scheduledStart: new Date(Date.UTC(2025, 0, 1, hour)).toISOString(), fileSizeBytes: 1000, length: 60 });
const archivesOfChannel = async () => (await kura.app.inject({ url: '/api/channels/UC-a' })).json().archives;
const historyIds = async () => (await kura.app.inject({ url: '/api/history' })).json().map((r: { id: string }) => r.id);

describe('the read cache and this process’s own writes', () => {
  it('a takedown answered by this process shows in the next read, before its change notification arrives', async () => {
    await addUser(kura, 'root', { admin: true });
    const admin = await logIn(kura, 'root');
    await kura.load([record('a1', 1), record('a2', 2)]);
    expect(await archivesOfChannel()).toBe(2);
    expect(await historyIds()).toEqual(['a2', 'a1']);

    const takeDown = (id: string, cookie?: string) =>
      kura.app.inject({ method: 'DELETE', url: `/api/video/${id}`, headers: { ...SAME_ORIGIN, ...(cookie ? { cookie } : {}) }, payload: { reason: 'asked' } });
    expect((await takeDown('a2', admin)).statusCode).toBe(204);
    expect(await archivesOfChannel()).toBe(1);
    expect(await historyIds()).toEqual(['a1']);
  });

  it('a refused write leaves cached reads be; the notification of a change made elsewhere empties them', async () => {
    await kura.load([record('a1', 1)]);
    expect(await historyIds()).toEqual(['a1']);
    // another process (here: an import) adds a record; its notification is held
    await kura.load([record('a2', 2)]);
    const refused = await kura.app.inject({ method: 'DELETE', url: '/api/video/a1', headers: SAME_ORIGIN, payload: { reason: 'asked' } });
    expect(refused.statusCode).toBe(401);
    expect(await historyIds()).toEqual(['a1']);
    release();
    expect(await historyIds()).toEqual(['a2', 'a1']);
  });
});
