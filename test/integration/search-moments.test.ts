import { Meilisearch } from 'meilisearch';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSearch } from '../../src/wiring/search.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { buildRecord } from '../support/factories.js';
import { followSearch, type SearchFollower } from '../support/search.js';

// Moments' text found by a search (decision 0131): the built-in engine through the official
// Meilisearch client, as the web app asks it; the hit says which moment, so at which time.
let kura: TestApp;
let follower: SearchFollower;
let client: Meilisearch;
let cookie: string;
const KARAOKE = 'momentSrch1';
const OTHER = 'momentSrch2';

beforeAll(async () => {
  kura = await startTestApp({}, {}, { search: (db, feed) => createSearch({ search: { kind: 'builtin' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) });
  follower = await followSearch(kura.db, { kind: 'builtin' });
  const indexed = follower.synced([KARAOKE, OTHER]);
  await kura.load([
    buildRecord({ id: KARAOKE, title: '【歌枠】Sunday karaoke', channelName: 'Utaite' }, 1),
    buildRecord({ id: OTHER, title: 'Morning chat', channelName: 'Someone' }, 2),
  ]);
  await indexed;
  await addUser(kura, 'marker');
  cookie = await logIn(kura, 'marker');
  const engineUrl = `${await kura.app.listen({ port: 0, host: '127.0.0.1' })}/api/search-engine`;
  client = new Meilisearch({ host: engineUrl, apiKey: ((await kura.app.inject({ url: '/api/search' })).json() as { apiKey: string }).apiKey });
});
afterAll(async () => {
  await follower?.stop();
  await kura?.close();
});

async function mark(id: string, at: number, text: string): Promise<{ id: string }> {
  const synced = follower.synced([id]);
  const response = await kura.app.inject({ method: 'POST', url: `/api/video/${id}/moments`, headers: { ...SAME_ORIGIN, cookie }, payload: { at, text } });
  if (response.statusCode !== 201) synced.catch(() => undefined);
  expect(response.statusCode, response.body).toBe(201);
  await synced;
  return response.json();
}

const hitsOf = async (q: string) => (await client.index('kura').search(q, { attributesToHighlight: ['moments'] })).hits;

describe('searching moments', () => {
  it('finds a record by a moment’s text, Japanese included, and the hit marks the moment (so its time)', async () => {
    await mark(KARAOKE, 2723, '残響散歌 / Aimer');
    await mark(KARAOKE, 60, 'Opening talk');
    await vi.waitFor(async () => expect((await hitsOf('残響散歌')).map((h) => h.id)).toEqual([KARAOKE]), { timeout: 10_000 });
    for (const q of ['残響', 'aimer', 'Opening'])
      expect(
        (await hitsOf(q)).map((h) => h.id),
        q,
      ).toEqual([KARAOKE]);
    const [hit] = await hitsOf('aimer');
    expect(hit?.moments).toEqual([
      { at: 60, text: 'Opening talk' },
      { at: 2723, text: '残響散歌 / Aimer' },
    ]);
    const marked = (hit?._formatted?.moments as Array<{ at: number; text: string }>).filter((m) => m.text.includes('<em>'));
    expect(marked).toEqual([{ at: 2723, text: '残響散歌 / <em>Aimer</em>' }]);
  });

  it('ranks a title match above a moment match, and forgets a removed moment', async () => {
    const moment = await mark(OTHER, 10, 'karaoke later?');
    await vi.waitFor(async () => expect((await hitsOf('karaoke')).map((h) => h.id)).toEqual([KARAOKE, OTHER]), { timeout: 10_000 });
    const synced = follower.synced([OTHER]);
    expect((await kura.app.inject({ method: 'DELETE', url: `/api/moments/${moment.id}`, headers: { ...SAME_ORIGIN, cookie } })).statusCode).toBe(204);
    await synced;
    await vi.waitFor(async () => expect((await hitsOf('karaoke')).map((h) => h.id)).toEqual([KARAOKE]), { timeout: 10_000 });
  });
});
