import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMomentRepo } from '../../src/adapters/db/moment-repo.js';
import os from 'node:os';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createChannelRepo } from '../../src/adapters/db/channel-repo.js';
import { createChatRepo } from '../../src/adapters/db/chat-repo.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFrameRequestSignal } from '../../src/adapters/db/frame-repo.js';
import { createPool, isReachable } from '../../src/adapters/db/pool.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { buildApp } from '../../src/http/app.js';
import { startTestApp, TEST_PUBLIC_URL, testSources, type TestApp } from '../support/app.js';
import { buildRecords } from '../support/factories.js';

let kura: TestApp;
beforeAll(async () => {
  kura = await startTestApp();
  await kura.load(buildRecords(3));
});
afterAll(() => kura.close());

describe('API overview, OpenAPI and changelog', () => {
  it('GET /api names the service, its version and commit, and links every resource', async () => {
    const response = await kura.app.inject({ url: '/api' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ name: 'kura', version: expect.stringMatching(/^\d+\.\d+\.\d+/), commit: expect.any(String) });
    expect(body.links).toMatchObject({ history: `${TEST_PUBLIC_URL}/api/history`, openapi: `${TEST_PUBLIC_URL}/api/openapi.json` });
  });

  it('GET /api/openapi.json is OpenAPI 3.1 generated from the route schemas', async () => {
    const spec = (await kura.app.inject({ url: '/api/openapi.json' })).json();
    expect(spec.openapi).toBe('3.1.0');
    const history = spec.paths['/api/history'].get;
    expect(history.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['channelId', 'limit', 'page', 'sort', 'unfinished']);
    expect(history.parameters.find((p: { name: string }) => p.name === 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, default: 25 });
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(['/api/queue', '/api/stats', '/api/video/{id}', '/api/changelog', '/api/channels', '/api/channels/{channelId}']),
    );
    expect(spec.components.schemas.Channel.properties.latestArchive).toBeDefined();
    expect(history.parameters.every((p: { required?: boolean }) => p.required !== true)).toBe(true);
    // errors as the server sends them: problem JSON, never plain application/json
    expect(Object.keys(history.responses['4XX'].content)).toEqual(['application/problem+json']);
    expect(history.responses['4XX'].content['application/problem+json'].schema.properties.code).toBeDefined();
    expect(spec.components.schemas.LivestreamRecord.properties.fileSizeBytes.type).toBe('integer');
  });

  it('the document validates with an OpenAPI 3.1 validator, and a broken one does not', async () => {
    const spec = (await kura.app.inject({ url: '/api/openapi.json' })).json();
    const validator = new Validator();
    expect(await validator.validate(spec)).toEqual({ valid: true });
    expect(validator.version).toBe('3.1');
    const broken = { ...spec, paths: { ...spec.paths, '/api/history': { get: { ...spec.paths['/api/history'].get, responses: 'none' } } } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('names every operation with a unique camelCase operationId, health and metrics included', async () => {
    const spec = (await kura.app.inject({ url: '/api/openapi.json' })).json();
    const operations = Object.values(spec.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((ops) => Object.values(ops));
    const ids = operations.map((operation) => operation.operationId);
    expect(
      ids.every((id) => typeof id === 'string' && /^[a-z][a-zA-Z0-9]*$/.test(id)),
      ids.join(' '),
    ).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([spec.paths['/healthz'].get.operationId, spec.paths['/readyz'].get.operationId, spec.paths['/metrics'].get.operationId]).toEqual([
      'getHealth',
      'getReadiness',
      'getMetrics',
    ]);
    expect(spec.paths['/readyz'].get.responses['503']).toBeDefined();
    expect(Object.keys(spec.paths['/metrics'].get.responses['200'].content)).toEqual([expect.stringMatching(/^text\/plain/)]);
    expect(spec.paths['/api/history'].get.operationId).toBe('listHistory');
  });

  it('GET /api/changelog and /api/changelog.rss come from CHANGELOG.md', async () => {
    const releases = (await kura.app.inject({ url: '/api/changelog' })).json();
    expect(releases[0]).toMatchObject({ version: expect.any(String), date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(releases[0].changes.length).toBeGreaterThan(0);
    const rss = await kura.app.inject({ url: '/api/changelog.rss' });
    expect(rss.headers['content-type']).toMatch(/^application\/rss\+xml/);
    expect(rss.body).toContain('<rss version="2.0">');
    expect(rss.body).toContain(`<title>Kura API ${releases[0].version}</title>`);
    expect(rss.body.match(/<item>/g)).toHaveLength(releases.length);
  });
});

describe('operations endpoints', () => {
  it('/healthz and /readyz answer while the database is up', async () => {
    expect((await kura.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await kura.app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ready' });
  });

  it('/metrics exposes a request duration histogram per route pattern', async () => {
    await kura.app.inject({ url: '/api/video/rec00000001' });
    await kura.app.inject({ url: '/api/video/rec00000002' });
    const response = await kura.app.inject({ url: '/metrics' });
    const metrics = response.body;
    // the text format as prom-client writes it (its response schema documents it, never re-serializes it)
    expect([response.headers['content-type'], metrics.slice(0, 7)]).toEqual([expect.stringMatching(/^text\/plain; version=0.0.4/), '# HELP ']);
    expect(metrics).toMatch(/kura_http_request_duration_seconds_count\{method="GET",route="\/api\/video\/:id",status_code="200"\} 2/);
    expect(metrics).toContain('kura_process_resident_memory_bytes');
  });
});

describe('CORS', () => {
  it('allows cross-origin reads and exposes the pagination headers', async () => {
    const response = await kura.app.inject({ url: '/api/history', headers: { origin: 'https://viewer.example' } });
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-expose-headers']).toBe('x-kura-pagination-total, x-kura-pagination-has-more, x-kura-integrity');
    const preflight = await kura.app.inject({
      method: 'OPTIONS',
      url: '/api/history',
      headers: { origin: 'https://viewer.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(204);
  });

  it('lets a cross-origin client (with an API token) send every method the API has, PATCH of a follow included', async () => {
    const preflight = await kura.app.inject({
      method: 'OPTIONS',
      url: '/api/follows/some-follow',
      headers: { origin: 'https://tool.example', 'access-control-request-method': 'PATCH' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PATCH, DELETE');
  });

  it('allows only the configured origins when a list is given', async () => {
    const strict = await startTestApp({ corsOrigins: ['https://ok.example'] });
    try {
      const ok = await strict.app.inject({ url: '/api/stats', headers: { origin: 'https://ok.example' } });
      expect(ok.headers['access-control-allow-origin']).toBe('https://ok.example');
      const other = await strict.app.inject({ url: '/api/stats', headers: { origin: 'https://evil.example' } });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await strict.close();
    }
  });
});

describe('read cache', () => {
  it('serves a change committed by another process on the next request', async () => {
    const before = (await kura.app.inject({ url: '/api/history' })).json();
    expect(before[0].title).not.toBe('Renamed elsewhere');
    // another process's write: a separate connection, not this app's code path
    const changed = kura.nextChange();
    await kura.db.pool.query(`update livestreams set title = 'Renamed elsewhere' where id = $1`, [before[0].id]);
    await changed;
    const after = (await kura.app.inject({ url: '/api/history' })).json();
    expect(after[0].title).toBe('Renamed elsewhere');
  });
});

describe('readiness without a database', () => {
  it('/readyz answers 503 database_unavailable when PostgreSQL does not answer', async () => {
    // a real connection attempt to a port where nothing listens
    const unreachable = createPool({ connectionString: 'postgres://kura:x@127.0.0.1:1/kura' });
    const app = await buildApp(
      {
        livestreams: kura.db.livestreams,
        watchLooks: kura.db.watchLooks,
        channels: createChannelRepo(kura.db.pool),
        captures: createCaptureRepo(kura.db.pool),
        moments: createMomentRepo(kura.db.pool),
        chats: createChatRepo(kura.db.pool),
        chatFiles: { lines: async () => null },
        recordedBytes: { readable: async () => new Map(), read: async () => null },
        frameRequests: createFrameRequestSignal(kura.db.pool),
        store: createFsStore(os.tmpdir()),
        source: testSources(),
        isDatabaseReachable: () => isReachable(unreachable),
        changeFeed: null,
        about: { name: 'kura', version: '0', commit: 'x', changelog: [] },
        accounts: kura.accounts,
        scheduler: kura.jobs,
      },
      { publicUrl: TEST_PUBLIC_URL, corsOrigins: [], usdPerGbPerMonth: 0, readCacheEntries: 0, logLevel: 'silent' },
    );
    try {
      const response = await app.inject({ url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ code: 'database_unavailable', status: 503 });
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await unreachable.end();
    }
  });
});
