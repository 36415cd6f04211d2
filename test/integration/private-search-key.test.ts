import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearch } from '../../src/wiring/search.js';
import { addUser, createToken, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { MeilisearchDouble } from '../support/meilisearch-double.js';

// KURA_PUBLIC_READ=false with the built-in engine: the search key a caller reads from
// /api/search works only while the session or API token it was read with still does.

let kura: TestApp;

beforeAll(async () => {
  kura = await startTestApp(
    { publicRead: false, corsOrigins: [TEST_PUBLIC_URL] },
    {},
    { search: (db, feed) => createSearch({ search: { kind: 'builtin' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) },
  );
  await addUser(kura, 'reader');
  await addUser(kura, 'other');
});
afterAll(() => kura.close());

/** The key GET /api/search hands to a caller with these headers. */
const readKey = async (headers: Record<string, string>): Promise<string> => {
  const response = await kura.app.inject({ url: '/api/search', headers });
  expect(response.statusCode).toBe(200);
  return response.json().apiKey;
};
/** The status a search of the engine answers with this key, and Meilisearch's code when it refuses. */
const searchWith = async (key: string): Promise<[number, string | undefined]> => {
  const response = await kura.app.inject({
    method: 'POST',
    url: '/api/search-engine/indexes/kura/search',
    headers: { authorization: `Bearer ${key}` },
    payload: { q: '' },
  });
  return [response.statusCode, response.statusCode === 200 ? undefined : response.json().code];
};

describe('the search key of a private instance', () => {
  it('stops working once the API token it was read with is revoked, while the user gets a working one again', async () => {
    const cookie = await logIn(kura, 'reader');
    const token = await createToken(kura, cookie);
    const key = await readKey({ authorization: `Bearer ${token.token}` });
    expect(await searchWith(key)).toEqual([200, undefined]);

    const revoke = await kura.app.inject({ method: 'DELETE', url: `/api/tokens/${token.id}`, headers: { ...SAME_ORIGIN, cookie } });
    expect(revoke.statusCode).toBe(204);
    expect(await searchWith(key)).toEqual([403, 'invalid_api_key']);
    // the user's client, still logged in, asks again and searches
    expect(await searchWith(await readKey({ cookie }))).toEqual([200, undefined]);
  });

  it('stops working once the session it was read in has logged out', async () => {
    const cookie = await logIn(kura, 'reader');
    const key = await readKey({ cookie });
    expect(await searchWith(key)).toEqual([200, undefined]);
    const logout = await kura.app.inject({ method: 'POST', url: '/auth/logout', headers: { ...SAME_ORIGIN, cookie } });
    expect(logout.statusCode).toBeLessThan(300);
    expect(await searchWith(key)).toEqual([403, 'invalid_api_key']);
  });

  it('is never the instance-wide stored key, which searches nothing here', async () => {
    const { rows } = await kura.db.pool.query<{ search_key: string }>('select search_key from search_settings');
    const stored = rows[0]?.search_key as string;
    const given = await readKey({ cookie: await logIn(kura, 'other') });
    expect(given).not.toBe(stored);
    expect(await searchWith(stored)).toEqual([403, 'invalid_api_key']);
  });
});

// KURA_SEARCH=meilisearch against a MEILISEARCH DOUBLE (no Meilisearch server runs here): the
// token is checked as Meilisearch checks a tenant token (its signature by the parent key, `exp`).
describe('the search key of a private instance searching Meilisearch', () => {
  let double: MeilisearchDouble;
  let meili: TestApp;
  beforeAll(async () => {
    double = await MeilisearchDouble.start('admin-key');
    const search = { kind: 'meilisearch' as const, url: double.url, publicUrl: 'https://search.example.org', adminKey: 'admin-key' };
    meili = await startTestApp(
      { publicRead: false, corsOrigins: [TEST_PUBLIC_URL] },
      {},
      { search: (db, feed) => createSearch({ search, publicUrl: TEST_PUBLIC_URL, publicRead: false }, db.pool, feed) },
    );
    await addUser(meili, 'reader');
  });
  afterAll(async () => {
    await meili?.close();
    await double?.close();
  });

  it('is a tenant token of the search-only key that Meilisearch refuses an hour later, never the key itself', async () => {
    const response = await meili.app.inject({ url: '/api/search', headers: { cookie: await logIn(meili, 'reader') } });
    expect(response.statusCode).toBe(200);
    const token: string = response.json().apiKey;
    const parent = double.keys.find((key) => key.name === 'kura-search');
    expect(parent).toBeDefined();
    expect(token).not.toBe(parent?.key);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    expect(
      createHmac('sha256', parent?.key as string)
        .update(`${header}.${payload}`)
        .digest('base64url'),
    ).toBe(signature);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const now = Date.now() / 1000;
    expect(claims).toMatchObject({ apiKeyUid: parent?.uid, searchRules: ['kura'] });
    expect(claims.exp).toBeGreaterThan(now + 3500);
    expect(claims.exp).toBeLessThanOrEqual(now + 3600);
  });
});
