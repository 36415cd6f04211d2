import { Meilisearch, MeilisearchApiError } from 'meilisearch';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSearch } from '../../src/wiring/search.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { buildRecord, type HistoryRecordJson } from '../support/factories.js';
import { followSearch, type SearchFollower } from '../support/search.js';

// The official Meilisearch JS client against the built-in engine, with the key /api/search hands out.
let kura: TestApp;
let follower: SearchFollower;
let client: Meilisearch;
let access: { enabled: boolean; url: string; apiKey: string; index: string };
let engineUrl: string;

const TITLES = [
  'Karaoke night',
  'Acoustic karaoke',
  'Minecraft survival',
  'Café acoustique',
  'Night owls chat',
  'Piano karaoke night',
  'Retro games with Sakura',
  'Zelda speedrun',
];
const records: HistoryRecordJson[] = Array.from({ length: 48 }, (_, n) =>
  buildRecord(
    {
      title: `${TITLES[n % TITLES.length]} ${n}`,
      channelName: n % 5 === 0 ? 'Sakura Utaite' : `Channel ${n % 4}`,
      channelId: `UC${String(n % 4).padStart(22, '0')}`,
      finished: n % 6 !== 0,
      ...(n % 3 === 0 ? { platform: 'hls', sourceUrl: `https://live.example.org/${n}/index.m3u8` } : {}),
    },
    n,
  ),
);
const ids = (hits: ReadonlyArray<Record<string, unknown>>) => hits.map((h) => h.id);
const matching = (pattern: RegExp) => records.filter((r) => pattern.test(`${r.title} ${r.channelName}`));

beforeAll(async () => {
  kura = await startTestApp({}, {}, { search: (db, feed) => createSearch({ search: { kind: 'builtin' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) });
  follower = await followSearch(kura.db, { kind: 'builtin' });
  const indexed = follower.synced(records.map((r) => r.id));
  await kura.load(records);
  await indexed;
  engineUrl = `${await kura.app.listen({ port: 0, host: '127.0.0.1' })}/api/search-engine`;
  access = (await kura.app.inject({ url: '/api/search' })).json();
  client = new Meilisearch({ host: engineUrl, apiKey: access.apiKey });
  // the api's index applies the documents when its own notification arrives: a moment after the drain
  await vi.waitFor(async () => expect((await client.index('kura').search('', { limit: 0 })).estimatedTotalHits).toBe(records.length), { timeout: 10_000 });
});
afterAll(async () => {
  await follower?.stop();
  await kura?.close();
});

describe('GET /api/search (builtin)', () => {
  it('hands out the engine URL, a key and the index kura', () => {
    expect(access).toEqual({ enabled: true, url: `${TEST_PUBLIC_URL}/api/search-engine`, apiKey: expect.stringMatching(/^[\w-]{40,}$/), index: 'kura' });
  });
});

describe('the built-in engine through the meilisearch client', () => {
  const index = () => client.index('kura');

  it('finds records by title words, as records with numbers as numbers', async () => {
    const result = await index().search('karaoke', { limit: 100 });
    expect(new Set(ids(result.hits))).toEqual(new Set(matching(/karaoke/i).map((r) => r.id)));
    expect(result.estimatedTotalHits).toBe(matching(/karaoke/i).length);
    const hit = result.hits.find((h) => h.finished) as Record<string, unknown>;
    const record = records.find((r) => r.id === hit.id) as HistoryRecordJson;
    expect(hit).toMatchObject({
      id: record.id,
      title: record.title,
      fileSizeBytes: record.fileSizeBytes,
      length: record.length,
      scheduledStart: record.scheduledStart,
      submitters: record.submitters,
    });
    expect(typeof hit.fileSizeBytes).toBe('number');
  });

  it('tolerates typos, ignores accents and case, and matches the last word as a prefix', async () => {
    const karaoke = new Set(matching(/karaoke/i).map((r) => r.id));
    expect(new Set(ids((await index().search('karoke', { limit: 100 })).hits))).toEqual(karaoke);
    expect(new Set(ids((await index().search('KARA', { limit: 100 })).hits))).toEqual(karaoke);
    expect(new Set(ids((await index().search('cafe', { limit: 100 })).hits))).toEqual(new Set(matching(/Café/).map((r) => r.id)));
    expect(new Set(ids((await index().search('acoustique', { limit: 100 })).hits))).toEqual(new Set(matching(/acoustique/).map((r) => r.id)));
    expect((await index().search('xylophone')).hits).toEqual([]);
  });

  it('needs every word: two words narrow the hits, channel names count', async () => {
    expect(new Set(ids((await index().search('karaoke night', { limit: 100 })).hits))).toEqual(new Set(matching(/karaoke night/i).map((r) => r.id)));
    expect(new Set(ids((await index().search('sakura', { limit: 100 })).hits))).toEqual(new Set(matching(/Sakura/).map((r) => r.id)));
  });

  it('ranks a word found in the title above one found only in the channel name, each group newest first', async () => {
    const newestFirst = (list: HistoryRecordJson[]) => [...list].sort((a, b) => b.scheduledStart.localeCompare(a.scheduledStart)).map((r) => r.id);
    const inTitle = matching(/Sakura/).filter((r) => /Sakura/.test(r.title));
    const inChannelOnly = matching(/Sakura/).filter((r) => !/Sakura/.test(r.title));
    expect(inTitle.length).toBeGreaterThan(1);
    expect(inChannelOnly.length).toBeGreaterThan(1);
    expect(ids((await index().search('sakura', { limit: 100 })).hits)).toEqual([...newestFirst(inTitle), ...newestFirst(inChannelOnly)]);
  });

  it('filters on finished, status, channelId and platform with =, !=, AND, OR and the array form', async () => {
    const all = async (filter: string | Array<string | string[]>) => new Set(ids((await index().search('', { filter, limit: 100 })).hits));
    const where = (accept: (r: HistoryRecordJson) => boolean) => new Set(records.filter(accept).map((r) => r.id));
    const hls = (r: HistoryRecordJson) => r.platform === 'hls';
    expect(await all('finished = true')).toEqual(where((r) => r.finished));
    expect(await all('status = upcoming')).toEqual(where((r) => !r.finished));
    expect(await all('platform = hls AND finished = false')).toEqual(where((r) => hls(r) && !r.finished));
    expect(await all(`channelId = "${records[1]!.channelId}" OR channelId = ${records[2]!.channelId}`)).toEqual(
      where((r) => r.channelId === records[1]!.channelId || r.channelId === records[2]!.channelId),
    );
    expect(await all('platform != hls AND (status = upcoming OR finished = true)')).toEqual(where((r) => !hls(r)));
    expect(await all(['finished = true', ['platform = hls', `channelId = ${records[1]!.channelId}`]])).toEqual(
      where((r) => r.finished && (hls(r) || r.channelId === records[1]!.channelId)),
    );
    const refused = await index()
      .search('', { filter: 'title = x' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MeilisearchApiError);
    expect((refused as MeilisearchApiError).cause).toMatchObject({ code: 'invalid_search_filter', type: 'invalid_request' });
  });

  it('sorts by scheduledStart as time, by length and by fileSizeBytes', async () => {
    const byStart = await index().search('', { sort: ['scheduledStart:asc'], limit: 100 });
    expect(ids(byStart.hits)).toEqual([...records].sort((a, b) => Date.parse(a.scheduledStart) - Date.parse(b.scheduledStart)).map((r) => r.id));
    const byLength = await index().search('karaoke', { sort: ['length:desc'], filter: 'finished = true', limit: 100 });
    const lengths = byLength.hits.map((h) => h.length as number);
    expect(lengths).toEqual([...lengths].sort((a, b) => b - a));
    expect(lengths.length).toBe(matching(/karaoke/i).filter((r) => r.finished).length);
    const bySize = await index().search('', { sort: ['fileSizeBytes:asc'], filter: 'finished = true', limit: 3 });
    expect(bySize.hits.map((h) => h.fileSizeBytes)).toEqual(
      records
        .filter((r) => r.finished)
        .map((r) => r.fileSizeBytes)
        .sort((a, b) => (a as number) - (b as number))
        .slice(0, 3),
    );
    const refused = await index()
      .search('', { sort: ['title:asc'] })
      .catch((e: unknown) => e);
    expect((refused as MeilisearchApiError).cause).toMatchObject({ code: 'invalid_search_sort' });
  });

  it('pages by offset/limit and by page/hitsPerPage without gaps or repeats', async () => {
    const everything = ids((await index().search('', { limit: 100 })).hits);
    expect(everything).toHaveLength(records.length);
    const byOffset: unknown[] = [];
    for (let offset = 0; offset < records.length; offset += 7) {
      const page = await index().search('', { offset, limit: 7 });
      expect(page).toMatchObject({ offset, limit: 7, estimatedTotalHits: records.length });
      byOffset.push(...ids(page.hits));
    }
    expect(byOffset).toEqual(everything);
    const byPage: unknown[] = [];
    for (let page = 1; page <= 5; page++) {
      const result = await index().search('', { page, hitsPerPage: 10 });
      expect(result).toMatchObject({ page, hitsPerPage: 10, totalHits: records.length, totalPages: 5 });
      byPage.push(...ids(result.hits));
    }
    expect(byPage).toEqual(everything);
    expect((await index().search('', { page: 6, hitsPerPage: 10 })).hits).toEqual([]);
  });

  it('highlights matched words in title and channel name, and retrieves only the attributes asked', async () => {
    const result = await index().search('karoke sakura', {
      attributesToHighlight: ['title', 'channelName'],
      attributesToRetrieve: ['id', 'title', 'channelName'],
    });
    expect(result.hits.length).toBeGreaterThan(0);
    for (const hit of result.hits) {
      expect(Object.keys(hit).sort()).toEqual(['_formatted', 'channelName', 'id', 'title']);
      expect(hit._formatted?.title).toMatch(/<em>Karaoke<\/em>|<em>karaoke<\/em>/);
      expect(hit._formatted?.channelName).toBe('<em>Sakura</em> Utaite');
    }
    const prefix = await index().search('kara', {
      attributesToHighlight: ['*'],
      highlightPreTag: '[',
      highlightPostTag: ']',
      filter: `channelId = ${records[1]!.channelId}`,
    });
    expect(prefix.hits[0]?._formatted?.title).toMatch(/\[Kara\]oke|\[kara\]oke/);
  });

  it('refuses a highlight tag longer than 128 characters, alone and inside a multi-search, in Meilisearch format', async () => {
    const tag = `<${'x'.repeat(1022)}>`;
    const alone = await index()
      .search('', { sort: ['length:desc'], attributesToHighlight: ['*'], highlightPreTag: tag })
      .catch((e: unknown) => e);
    expect((alone as MeilisearchApiError).cause).toMatchObject({ code: 'invalid_search_highlight_pre_tag', type: 'invalid_request' });
    expect((alone as MeilisearchApiError).response?.status).toBe(400);
    const multi = await client
      .multiSearch({ queries: [{ indexUid: 'kura', q: '', sort: ['length:desc'], attributesToHighlight: ['*'], highlightPostTag: tag }] })
      .catch((e: unknown) => e);
    expect((multi as MeilisearchApiError).cause).toMatchObject({ code: 'invalid_search_highlight_post_tag' });
    const usual = await index().search('karaoke', { attributesToHighlight: ['title'], highlightPreTag: '<mark class="ais-Highlight-highlighted">' });
    expect(usual.hits[0]?._formatted?.title).toContain('<mark class="ais-Highlight-highlighted">');
  });

  it('answers the GET form, multi-search, the index, health and version', async () => {
    const viaGet = await index().searchGet('karaoke', { filter: 'finished = true', sort: ['scheduledStart:desc'], limit: 3 });
    const viaPost = await index().search('karaoke', { filter: 'finished = true', sort: ['scheduledStart:desc'], limit: 3 });
    expect(ids(viaGet.hits)).toEqual(ids(viaPost.hits));
    const multi = await client.multiSearch({
      queries: [
        { indexUid: 'kura', q: 'minecraft' },
        { indexUid: 'kura', q: 'zelda', limit: 1 },
      ],
    });
    expect(multi.results.map((r) => r.hits.length)).toEqual([matching(/Minecraft/).length, 1]);
    expect(multi.results[1]?.hits[0]?.title).toMatch(/^Zelda/);
    expect(await index().getRawInfo()).toMatchObject({ uid: 'kura', primaryKey: 'id' });
    expect(await client.health()).toEqual({ status: 'available' });
    expect((await client.getVersion()).pkgVersion).toMatch(/^\d+\.\d+\.\d+/);
    const missing = await client
      .index('other')
      .search('x')
      .catch((e: unknown) => e);
    expect((missing as MeilisearchApiError).cause).toMatchObject({ code: 'index_not_found' });
  });

  it('refuses every write and admin route with the handed-out key (403 in Meilisearch format), changing nothing', async () => {
    const writes: Array<() => Promise<unknown>> = [
      () => index().addDocuments([{ id: 'x1', title: 'planted' }]),
      () => index().updateDocuments([{ id: records[1]!.id, title: 'changed' }]),
      () => index().deleteDocument(records[1]!.id),
      () => index().deleteAllDocuments(),
      () => index().updateSettings({ searchableAttributes: ['id'] }),
      () => index().getDocuments(),
      () => client.createIndex('other'),
      () => client.deleteIndex('kura'),
      () => client.getKeys(),
      () => client.createKey({ actions: ['*'], indexes: ['*'], expiresAt: null }),
      () => client.tasks.getTasks(),
    ];
    for (const write of writes) {
      const error = await write().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, String(write)).toBeInstanceOf(MeilisearchApiError);
      expect((error as MeilisearchApiError).response?.status).toBe(403);
      expect((error as MeilisearchApiError).cause).toEqual({
        message: 'The provided API key is invalid.',
        code: 'invalid_api_key',
        type: 'auth',
        link: 'https://docs.meilisearch.com/errors#invalid_api_key',
      });
    }
    expect((await index().search('', { limit: 100 })).hits).toHaveLength(records.length);
    expect((await index().search('planted')).hits).toEqual([]);
  });

  it('wants the key: none is 401, a wrong one 403', async () => {
    const none = await fetch(`${engineUrl}/indexes/kura/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'missing_authorization_header', type: 'auth' });
    const wrong = await new Meilisearch({ host: engineUrl, apiKey: 'not-the-key' })
      .index('kura')
      .search('karaoke')
      .catch((e: unknown) => e);
    expect((wrong as MeilisearchApiError).response?.status).toBe(403);
  });
});

describe('OpenAPI', () => {
  it('documents /api/search and the engine read routes, not the refused ones', async () => {
    const paths = Object.keys((await kura.app.inject({ url: '/api/openapi.json' })).json().paths);
    expect(paths).toEqual(
      expect.arrayContaining(['/api/search', '/api/search-engine/indexes/{uid}/search', '/api/search-engine/multi-search', '/api/search-engine/health']),
    );
    expect(paths.filter((p) => p.includes('*'))).toEqual([]);
  });
});

describe('KURA_SEARCH=off', () => {
  it('answers {"enabled": false} and serves no engine', async () => {
    const off = await startTestApp({}, {}, { search: (db, feed) => createSearch({ search: { kind: 'off' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) });
    try {
      expect((await off.app.inject({ url: '/api/search' })).json()).toEqual({ enabled: false });
      expect((await off.app.inject({ url: '/api/search-engine/health' })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });
});
