import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { createSearch } from '../../src/wiring/search.js';
import { addUser, createToken, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { storeArchive } from '../support/archives.js';
import type { OpenApiDocument } from '../support/openapi-check.js';

// KURA_PUBLIC_READ=false: a stranger reaches health and what a login needs, nothing else; a feed
// token in the URL reads feeds and downloads, and only those.

/** The operations a stranger may reach on a private instance (decision 0080 says why each). */
const OPEN = [
  'GET /api/search-engine/health',
  'GET /api/user',
  'GET /auth/providers',
  'GET /auth/{provider}/callback',
  'GET /auth/{provider}/login',
  'GET /healthz',
  'GET /readyz',
  'POST /auth/local',
  'POST /auth/logout',
  'POST /auth/setup',
];
const PATH_VALUES: Record<string, string> = {
  id: 'stored-1',
  type: 'video',
  uid: 'kura',
  provider: 'local',
  channelId: 'cdn.example',
  part: '1',
  file: '0.ts',
};

let kura: TestApp;
let cookie: string;
let apiToken: string;
let video: Buffer;

beforeAll(async () => {
  kura = await startTestApp(
    { publicRead: false, corsOrigins: [TEST_PUBLIC_URL] },
    {},
    { search: (db, feed) => createSearch({ search: { kind: 'builtin' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) },
  );
  video = await storeArchive(createFsStore(kura.archiveDir), kura.db.livestreams, 'stored-1');
  await addUser(kura, 'viewer');
  cookie = await logIn(kura, 'viewer');
  apiToken = (await createToken(kura, cookie)).token;
});
afterAll(() => kura.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const newFeedToken = async (): Promise<string> => {
  const response = await kura.app.inject({ method: 'POST', url: '/api/user/feed-token', headers: { ...SAME_ORIGIN, cookie } });
  expect(response.statusCode).toBe(201);
  return response.json().token;
};
const problemCode = (response: LightMyRequestResponse) =>
  String(response.headers['content-type']).startsWith('application/problem+json') ? response.json().code : response.body;

describe('a private instance (KURA_PUBLIC_READ=false)', () => {
  it('answers a stranger 401 problem JSON on every operation of its OpenAPI document but health and logging in', async () => {
    const spec: OpenApiDocument = (await kura.app.inject({ url: '/api/openapi.json', headers: bearer(apiToken) })).json();
    const reached: string[] = [];
    const refusals = new Set<string>();
    for (const [path, methods] of Object.entries(spec.paths)) {
      for (const method of Object.keys(methods)) {
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => PATH_VALUES[name] ?? 'x');
        const response = await kura.app.inject({ method: method.toUpperCase() as 'GET', url, headers: SAME_ORIGIN });
        const operation = `${method.toUpperCase()} ${path}`;
        if (response.statusCode !== 401) reached.push(operation);
        else if (path.startsWith('/api/search-engine/')) refusals.add(`engine:${response.json().code}`);
        else refusals.add(problemCode(response));
      }
    }
    expect(Object.keys(spec.paths).length).toBeGreaterThan(50);
    // GET /api/user is open, but without ?optional=true it answers nobody 401 itself
    expect(reached.sort()).toEqual(OPEN.filter((operation) => operation !== 'GET /api/user'));
    expect([...refusals].sort()).toEqual(['engine:missing_authorization_header', 'not_logged_in']);
    expect((await kura.app.inject({ url: '/api/user?optional=true' })).json()).toBeNull();
    // a path no route answers names nothing: 404 as on a public instance
    expect(problemCode(await kura.app.inject({ url: '/api/nothing-here' }))).toBe('route_not_found');
  });

  it('tells the UI it is private on the login providers route, and names no record in its pages', async () => {
    expect((await kura.app.inject({ url: '/auth/providers' })).json()).toMatchObject({ publicRead: false });
    const page = await kura.app.inject({ url: '/archive/stored-1' });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('Stream stored-1');
    // the app knows it is private before it asks anything
    expect(page.body).toContain('<meta name="kura-public-read" content="false">');
  });

  it('serves everything to a session and to an API token, /metrics included', async () => {
    expect((await kura.app.inject({ url: '/api/history', headers: { cookie } })).json()).toMatchObject([{ id: 'stored-1' }]);
    const metrics = await kura.app.inject({ url: '/metrics', headers: bearer(apiToken) });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('kura_');
  });

  it('allows CORS only from its own origin', async () => {
    const other = await kura.app.inject({ url: '/healthz', headers: { origin: 'https://elsewhere.example' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const own = await kura.app.inject({ url: '/healthz', headers: { origin: TEST_PUBLIC_URL } });
    expect(own.headers['access-control-allow-origin']).toBe(TEST_PUBLIC_URL);
  });

  it('reads a feed and downloads an archive with a feed token, whose links carry it', async () => {
    const token = await newFeedToken();
    const feed = await kura.app.inject({ url: `/feeds/archives.atom?feed_token=${token}` });
    expect(feed.statusCode).toBe(200);
    expect(feed.body).toContain(`${TEST_PUBLIC_URL}/api/download/stored-1/video?feed_token=${token}`);
    const download = await kura.app.inject({ url: `/api/download/stored-1/video?feed_token=${token}` });
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.equals(video)).toBe(true);
    const head = await kura.app.inject({ method: 'HEAD', url: `/api/download/stored-1/video?feed_token=${token}` });
    expect([head.statusCode, head.headers['content-length']]).toEqual([200, String(video.length)]);
    const state = (await kura.app.inject({ url: '/api/user/feed-token', headers: { cookie } })).json();
    expect(state.createdAt).not.toBeNull();
    expect(state.lastUsedAt).not.toBeNull();
  });

  it('refuses a feed token on any other route, and as a bearer token', async () => {
    const token = await newFeedToken();
    for (const url of ['/api/history', '/api/video/stored-1', '/api/user/feed-token', '/metrics', '/api/search']) {
      const response = await kura.app.inject({ url: `${url}?feed_token=${token}` });
      expect([url, response.statusCode, problemCode(response)]).toEqual([url, 401, 'not_logged_in']);
    }
    const asBearer = await kura.app.inject({ url: '/feeds/archives.atom', headers: bearer(token) });
    expect([asBearer.statusCode, problemCode(asBearer)]).toEqual([401, 'not_logged_in']);
    const rotate = await kura.app.inject({ method: 'POST', url: '/api/user/feed-token', headers: SAME_ORIGIN, query: { feed_token: token } });
    expect(rotate.statusCode).toBe(401);
  });

  it('voids the old feed token when the user rotates it', async () => {
    const old = await newFeedToken();
    expect((await kura.app.inject({ url: `/feeds/queue.atom?feed_token=${old}` })).statusCode).toBe(200);
    const current = await newFeedToken();
    for (const url of ['/feeds/queue.atom', '/api/download/stored-1/video']) {
      const refused = await kura.app.inject({ url: `${url}?feed_token=${old}` });
      expect([url, refused.statusCode, problemCode(refused)]).toEqual([url, 401, 'feed_token_invalid']);
      expect((await kura.app.inject({ url: `${url}?feed_token=${current}` })).statusCode).toBe(200);
    }
  });
});

describe('a public instance (the default)', () => {
  let open: TestApp;
  beforeAll(async () => {
    open = await startTestApp();
    await storeArchive(createFsStore(open.archiveDir), open.db.livestreams, 'stored-1');
  });
  afterAll(() => open.close());

  it('serves history, feeds, downloads and /metrics to anyone, to any origin', async () => {
    for (const url of ['/api/history', '/feeds/archives.atom', '/api/download/stored-1/video', '/metrics', '/api/openapi.json']) {
      const response = await open.app.inject({ url, headers: { origin: 'https://elsewhere.example' } });
      expect([url, response.statusCode, response.headers['access-control-allow-origin']]).toEqual([url, 200, '*']);
    }
    expect((await open.app.inject({ url: '/auth/providers' })).json()).toMatchObject({ publicRead: true });
    expect((await open.app.inject({ url: '/history' })).body).toContain('<meta name="kura-public-read" content="true">');
    expect((await open.app.inject({ url: '/feeds/archives.atom' })).body).not.toContain('feed_token');
  });
});
