import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildRecord, buildRecords, type HistoryRecordJson } from '../support/factories.js';

let kura: TestApp;
// 130 records an hour apart: every 13th (10 of them) upcoming, 120 finished
const records = buildRecords(130, { unfinishedEvery: 13 });

beforeAll(async () => {
  kura = await startTestApp();
  await kura.load(records);
});
afterAll(() => kura.close());

async function history(query: string) {
  const response = await kura.app.inject({ method: 'GET', url: `/api/history${query}` });
  return {
    status: response.statusCode,
    body: response.json(),
    total: response.headers['x-kura-pagination-total'],
    hasMore: response.headers['x-kura-pagination-has-more'],
    originalTotal: response.headers['x-pomu-pagination-total'],
  };
}

/** What the contract says a page holds, computed from the fixture. */
function expectedPage(options: { page: number; limit: number; sort: 'asc' | 'desc'; unfinished: boolean }) {
  const pool = records.filter((r) => options.unfinished || r.finished);
  const ordered = [...pool].sort((a, b) => a.scheduledStart.localeCompare(b.scheduledStart) || a.id.localeCompare(b.id));
  if (options.sort === 'desc') ordered.reverse();
  const limit = Math.min(options.limit, 100);
  const start = options.page * limit;
  return { ids: ordered.slice(start, start + limit).map((r) => r.id), total: pool.length, hasMore: start + limit < pool.length };
}

describe('GET /api/history', () => {
  it('defaults to the 25 newest finished records with pagination headers', async () => {
    const page = await history('');
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(25);
    expect(page.body.map((r: HistoryRecordJson) => r.id)).toEqual(expectedPage({ page: 0, limit: 25, sort: 'desc', unfinished: false }).ids);
    expect(page.total).toBe('120');
    expect(page.hasMore).toBe('true');
    expect(page.originalTotal).toBeUndefined(); // KURA_ORIGINAL_HEADERS is off by default
    expect(page.body.every((r: HistoryRecordJson) => r.finished)).toBe(true);
  });

  it('answers every combination of page, limit, sort and unfinished as the contract says', async () => {
    const pages = ['', '0', '1', '4', '40'];
    const limits = ['', '1', '7', '25', '100', '101', '5000'];
    const sorts = ['', 'asc', 'desc', 'ASC', 'Desc'];
    const unfinisheds = ['', 'true', 'false', '1', '0'];
    for (const page of pages)
      for (const limit of limits)
        for (const sort of sorts)
          for (const unfinished of unfinisheds) {
            const params = new URLSearchParams();
            if (page) params.set('page', page);
            if (limit) params.set('limit', limit);
            if (sort) params.set('sort', sort);
            if (unfinished) params.set('unfinished', unfinished);
            const got = await history(`?${params}`);
            const want = expectedPage({
              page: Number(page || 0),
              limit: Number(limit || 25),
              sort: (sort || 'desc').toLowerCase() as 'asc' | 'desc',
              unfinished: unfinished === 'true' || unfinished === '1',
            });
            const label = `?${params}`;
            expect(got.status, label).toBe(200);
            expect(
              got.body.map((r: HistoryRecordJson) => r.id),
              label,
            ).toEqual(want.ids);
            expect(got.total, label).toBe(String(want.total));
            expect(got.hasMore, label).toBe(String(want.hasMore));
          }
  });

  it('walks every page in both directions without gaps or repeats, deep pages included', async () => {
    for (const sort of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      for (let page = 0; ; page++) {
        const got = await history(`?limit=7&page=${page}&sort=${sort}&unfinished=true`);
        seen.push(...got.body.map((r: HistoryRecordJson) => r.id));
        if (got.hasMore === 'false') break;
      }
      expect(seen).toEqual(
        expectedPage({ page: 0, limit: 1000, sort, unfinished: true }).ids.concat(expectedPage({ page: 1, limit: 100, sort, unfinished: true }).ids),
      );
    }
  });

  it('sets has-more exactly at page boundaries', async () => {
    expect((await history('?limit=40&page=2')).hasMore).toBe('false'); // records 80–119 of 120
    expect((await history('?limit=40&page=1')).hasMore).toBe('true');
    expect((await history('?limit=60&page=1')).hasMore).toBe('false');
    expect((await history('?limit=59&page=2')).body).toHaveLength(2);
    const beyond = await history('?limit=40&page=3');
    expect(beyond.body).toEqual([]);
    expect(beyond.hasMore).toBe('false');
    expect(beyond.total).toBe('120');
  });

  it('clamps limits above 100 to 100', async () => {
    const got = await history('?limit=101&unfinished=true');
    expect(got.body).toHaveLength(100);
    expect(got.hasMore).toBe('true');
  });

  it('serves the record shape with numbers as numbers', async () => {
    const [first] = (await history('?limit=1')).body as HistoryRecordJson[];
    const source = records.find((r) => r.id === first?.id) as HistoryRecordJson;
    expect(first).toEqual({
      id: source.id,
      submitters: source.submitters,
      scheduledStart: source.scheduledStart,
      finished: true,
      title: source.title,
      channelName: source.channelName,
      channelId: source.channelId,
      thumbnail: source.thumbnail,
      downloadUrl: source.downloadUrl,
      fileSizeBytes: source.fileSizeBytes,
      length: source.length,
      status: 'finished',
      platform: 'youtube',
      sourceUrl: `https://www.youtube.com/watch?v=${source.id}`,
      startedAt: null,
      endedAt: null,
    });
    const upcoming = (await history('?limit=100&unfinished=true')).body.find((r: HistoryRecordJson) => !r.finished);
    expect(upcoming).not.toHaveProperty('downloadUrl');
    expect(upcoming).not.toHaveProperty('fileSizeBytes');
    expect(upcoming).not.toHaveProperty('length');
    expect(upcoming.status).toBe('upcoming');
  });

  it.each([
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['page=', 'page'],
    ['page=99999999999', 'page'],
    ['page=1&page=2', 'page'],
    ['limit=0', 'limit'],
    ['limit=-5', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=', 'limit'],
    ['sort=up', 'sort'],
    ['sort=', 'sort'],
    ['sort=ascending', 'sort'],
    ['unfinished=yes', 'unfinished'],
    ['unfinished=2', 'unfinished'],
    ['unfinished=', 'unfinished'],
  ])('refuses %s with a 400 problem naming %s', async (query, parameter) => {
    const response = await kura.app.inject({ method: 'GET', url: `/api/history?${query}` });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = response.json();
    expect(problem).toMatchObject({ status: 400, code: 'invalid_parameter', title: 'Bad Request' });
    expect(problem.detail).toContain(`"${parameter}"`);
    expect(problem.detail).toMatch(/rule: /);
  });
});

describe('history totals follow writes', () => {
  let fresh: TestApp;
  beforeAll(async () => {
    fresh = await startTestApp();
  });
  afterAll(() => fresh.close());

  const totalOf = async (query = '') => (await fresh.app.inject({ url: `/api/history${query}` })).headers['x-kura-pagination-total'];

  it('updates the total and the pages after inserts and updates', async () => {
    expect(await totalOf()).toBe('0');
    await fresh.load(buildRecords(10));
    expect(await totalOf()).toBe('10');
    await fresh.load(buildRecords(5, { offset: 10 }));
    expect(await totalOf()).toBe('15');
    // a finished record turns out to have failed: it leaves the default history but stays in the full one
    await fresh.load([buildRecord({ finished: false, status: 'failed' }, 3)]);
    expect(await totalOf()).toBe('14');
    expect(await totalOf('?unfinished=true')).toBe('15');
    const ids = (await fresh.app.inject({ url: '/api/history?limit=100' })).json().map((r: HistoryRecordJson) => r.id);
    expect(ids).not.toContain(buildRecord({}, 3).id);
  });

  it('orders records with the same scheduled start by id', async () => {
    const same = '2030-01-01T00:00:00.000Z';
    await fresh.load(['tie-b', 'tie-c', 'tie-a'].map((id) => buildRecord({ id, scheduledStart: same })));
    const desc = (await fresh.app.inject({ url: '/api/history?limit=3' })).json().map((r: HistoryRecordJson) => r.id);
    expect(desc).toEqual(['tie-c', 'tie-b', 'tie-a']);
    const asc = (await fresh.app.inject({ url: '/api/history?limit=100&sort=asc' })).json().map((r: HistoryRecordJson) => r.id);
    expect(asc.slice(-3)).toEqual(['tie-a', 'tie-b', 'tie-c']);
  });
});
