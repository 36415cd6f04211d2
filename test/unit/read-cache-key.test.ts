import Fastify from 'fastify';
import Type from 'typebox';
import { describe, expect, it, vi } from 'vitest';
import { readCacheKey, stableJson } from '../../src/http/read-cache-key.js';
import { ReadCache, sendCached } from '../../src/http/read-cache.js';

/** A request as Fastify hands it to a handler: parsed params, query and body on a route. */
const parsed = (query: Record<string, unknown>, more: { method?: string; params?: Record<string, unknown> } = {}) => ({
  method: more.method ?? 'GET',
  routeOptions: { url: '/api/history' } as never,
  params: more.params ?? {},
  query,
  body: undefined,
});

describe('the read cache key', () => {
  it('changes when the parsed query gains a parameter, whatever the route does with it', () => {
    const query = { page: 0, limit: 25, sort: 'desc' };
    const before = readCacheKey(parsed(query));
    expect(readCacheKey(parsed({ ...query, unfinished: 'true' }))).not.toBe(before);
    expect(readCacheKey(parsed({ ...query, page: 1 }))).not.toBe(before);
  });

  it('is the same for the same parsed request, whichever order its parameters came in, and for HEAD as GET', () => {
    const key = readCacheKey(parsed({ page: 0, limit: 25 }));
    expect(readCacheKey(parsed({ limit: 25, page: 0 }))).toBe(key);
    expect(readCacheKey(parsed({ page: 0, limit: 25 }, { method: 'HEAD' }))).toBe(key);
  });

  it('tells path parameters, routes, methods and what else the answer varies by apart', () => {
    const key = readCacheKey(parsed({}, { params: { channelId: 'a' } }));
    expect(readCacheKey(parsed({}, { params: { channelId: 'b' } }))).not.toBe(key);
    expect(readCacheKey(parsed({}, { params: { channelId: 'a' }, method: 'POST' }))).not.toBe(key);
    expect(readCacheKey({ ...parsed({}, { params: { channelId: 'a' } }), routeOptions: { url: '/api/queue' } as never })).not.toBe(key);
    expect(readCacheKey(parsed({}, { params: { channelId: 'a' } }), { audience: 'admin' })).not.toBe(
      readCacheKey(parsed({}, { params: { channelId: 'a' } }), { audience: 'public' }),
    );
  });

  it('leaves out a query parameter the route does not declare (a cache-buster), keeping every declared one', () => {
    const route = { url: '/api/history', schema: { querystring: Type.Object({ page: Type.Integer(), sort: Type.Optional(Type.String()) }) } } as never;
    const key = readCacheKey({ ...parsed({ page: 1 }), routeOptions: route });
    expect(readCacheKey({ ...parsed({ page: 1, _: '1700000000' }), routeOptions: route })).toBe(key);
    expect(readCacheKey({ ...parsed({ page: 1, sort: 'asc' }), routeOptions: route })).not.toBe(key);
  });

  it('serializes nested objects with sorted keys, arrays in order', () => {
    expect(stableJson({ b: [{ y: 1, x: 2 }], a: null })).toBe('{"a":null,"b":[{"x":2,"y":1}]}');
  });

  it('serializes as JSON.stringify does, but for key order: dates, undefined, strings to escape, numbers', () => {
    const value = {
      z: 'quote " and \\ and ✓',
      y: undefined,
      x: [undefined, 1.5, -0, 'a'],
      w: new Date('2026-11-29T00:00:00Z'),
      v: { u: true, t: null },
      s: 1e21,
    };
    expect(JSON.parse(stableJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
    expect(stableJson(value)).toBe('{"s":1e+21,"v":{"t":null,"u":true},"w":"2026-11-29T00:00:00.000Z","x":[null,1.5,0,"a"],"z":"quote \\" and \\\\ and ✓"}');
    expect(stableJson(undefined)).toBe('undefined');
  });
});

describe('sendCached', () => {
  it('keeps one answer per parsed request: defaults filled in share it, a request differing in one parameter gets its own', async () => {
    const app = Fastify({ ajv: { customOptions: { coerceTypes: 'array', useDefaults: true } } });
    const cache = new ReadCache(100, { connected: true, onChange: () => undefined });
    let computed = 0;
    app.get(
      '/pages',
      { schema: { querystring: Type.Object({ page: Type.Integer({ default: 0 }), sort: Type.Optional(Type.String()) }) } },
      async (request, reply) =>
        sendCached(request, reply, { cache, dependsOn: ['records'] }, async () => ({
          body: JSON.stringify({ n: (computed += 1), query: request.query }),
          headers: {},
        })),
    );
    const get = async (url: string) => (await app.inject({ method: 'GET', url })).json() as { n: number; query: Record<string, unknown> };
    const first = await get('/pages?page=1');
    expect(await get('/pages?page=1')).toEqual(first);
    expect(await get('/pages?page=0')).toEqual(await get('/pages'));
    const sorted = await get('/pages?page=1&sort=asc');
    expect(sorted).toEqual({ n: 3, query: { page: 1, sort: 'asc' } });
    expect(await get('/pages?page=1&sort=desc')).toEqual({ n: 4, query: { page: 1, sort: 'desc' } });
    expect(await get('/pages?page=1')).toEqual(first);
    expect(await get('/pages?page=1&_=1700000000')).toEqual(first);
    expect(computed).toBe(4);
    await app.close();
  });
});

describe('ReadCache', () => {
  it('keeps an answer with keepForMs that long at most, though nothing it depends on changed', async () => {
    const cache = new ReadCache(100, { connected: true, onChange: () => undefined });
    let computed = 0;
    const read = (at: number) => {
      vi.setSystemTime(at);
      return cache.through('GET /queue {}', ['records'], async () => ({ body: String((computed += 1)), headers: {} }), 5_000);
    };
    try {
      expect((await read(1_000_000)).body).toBe('1');
      expect((await read(1_004_999)).body).toBe('1');
      expect((await read(1_005_000)).body).toBe('2');
      expect((await read(1_009_999)).body).toBe('2');
    } finally {
      vi.useRealTimers();
    }
  });
});
