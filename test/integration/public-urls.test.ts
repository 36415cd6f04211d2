import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { buildRecord } from '../support/factories.js';

// Every public view of a URL someone gave Kura, asked anonymously and as the admin: the public
// sees it without user name and password and with its query values masked, the admin whole.
const SECRET_URL = 'https://user:pa55word@streams.example/live/karaoke.m3u8?token=t0kenValue&quality=720p';
const REDACTED_URL = 'https://streams.example/live/karaoke.m3u8?token=***&quality=***';
const SECRETS = ['pa55word', 't0kenValue'];

let kura: TestApp;
let admin: string;
let viewer: string;
let server: http.Server;

beforeAll(async () => {
  server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' }).end('#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nseg0.ts\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  kura = await startTestApp();
  await addUser(kura, 'root', { admin: true });
  await addUser(kura, 'viewer');
  [admin, viewer] = await Promise.all([logIn(kura, 'root'), logIn(kura, 'viewer')]);
  await kura.load([
    buildRecord({ id: 'archived1', platform: 'hls', sourceUrl: SECRET_URL, channelId: 'karaoke', channelName: 'Karaoke' }, 1),
    buildRecord({ id: 'upcoming1', platform: 'hls', sourceUrl: SECRET_URL, finished: false, status: 'upcoming', channelId: 'next' }, 2),
    buildRecord({ id: 'doomed1', platform: 'hls', sourceUrl: SECRET_URL, finished: false, status: 'upcoming', channelId: 'doomed' }, 3),
  ]);
});
afterAll(async () => {
  await kura?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const get = (url: string, cookie?: string) => kura.app.inject({ url, headers: cookie === undefined ? {} : { cookie } });

function expectNoSecrets(body: string) {
  for (const secret of SECRETS) expect(body).not.toContain(secret);
}

describe("a record's sourceUrl", () => {
  it('is redacted in the history for anyone but the admin, whatever the read cache holds', async () => {
    const anonymous = await get('/api/history?channelId=karaoke');
    expect(anonymous.json()).toEqual([expect.objectContaining({ id: 'archived1', sourceUrl: REDACTED_URL })]);
    expectNoSecrets(anonymous.body);
    // asked right after the public's answer was cached: the admin's is another entry
    expect((await get('/api/history?channelId=karaoke', admin)).json()).toEqual([expect.objectContaining({ id: 'archived1', sourceUrl: SECRET_URL })]);
    expect((await get('/api/history?channelId=karaoke', viewer)).json()).toEqual([expect.objectContaining({ sourceUrl: REDACTED_URL })]);
    expectNoSecrets((await get('/api/history?channelId=karaoke')).body);
  });

  it('is redacted in the queue for anyone but the admin', async () => {
    const anonymous = await get('/api/queue?channelId=next');
    expect(anonymous.json()).toEqual([expect.objectContaining({ id: 'upcoming1', sourceUrl: REDACTED_URL })]);
    expectNoSecrets(anonymous.body);
    expect((await get('/api/queue?channelId=next', admin)).json()).toEqual([expect.objectContaining({ id: 'upcoming1', sourceUrl: SECRET_URL })]);
  });

  it("is redacted in /api/video/{id}, with the URLs in a failure's reason, for anyone but the admin", async () => {
    const reason = `the source answered 403: ${SECRET_URL}: HTTP 403`;
    await kura.db.livestreams.transition('doomed1', { type: 'gave_up', reason });
    const anonymous = await get('/api/video/doomed1');
    expect(anonymous.json()).toMatchObject({ sourceUrl: REDACTED_URL, failureReason: `the source answered 403: ${REDACTED_URL}: HTTP 403` });
    expectNoSecrets(anonymous.body);
    expect((await get('/api/video/doomed1', admin)).json()).toMatchObject({ sourceUrl: SECRET_URL, failureReason: reason });
  });

  it('is never in the channels or the Atom feeds', async () => {
    const views = { '/api/channels': 'karaoke', '/api/channels/karaoke': 'archived1', '/feeds/archives.atom': 'archived1', '/feeds/queue.atom': 'upcoming1' };
    for (const [url, shows] of Object.entries(views)) {
      const response = await get(url, admin);
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toContain(shows);
      expectNoSecrets(response.body);
    }
  });

  it("is redacted in a submission's answer but for the admin's", async () => {
    const base = `http://user:pa55word@127.0.0.1:${(server.address() as { port: number }).port}`;
    const asks = (cookie: string, name: string) =>
      kura.app.inject({
        method: 'POST',
        url: '/api/submit',
        headers: { ...SAME_ORIGIN, cookie },
        payload: { videoUrl: `${base}/live/${name}.m3u8?token=t0kenValue` },
      });
    const byViewer = await asks(viewer, 'mine');
    expect(byViewer.statusCode, byViewer.body).toBe(200);
    expect(byViewer.json().sourceUrl).toBe(`http://127.0.0.1:${(server.address() as { port: number }).port}/live/mine.m3u8?token=***`);
    expectNoSecrets(byViewer.body);
    const byAdmin = await asks(admin, 'theirs');
    expect(byAdmin.json().sourceUrl).toBe(`${base}/live/theirs.m3u8?token=t0kenValue`);
  });
});

describe("a follow's url", () => {
  it('is redacted in the list and the detail for anyone but the admin, who created it with the whole URL', async () => {
    const created = await kura.app.inject({
      method: 'POST',
      url: '/api/follows',
      headers: { ...SAME_ORIGIN, cookie: admin },
      payload: { url: SECRET_URL, channel: 'Karaoke' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().url).toBe(SECRET_URL);
    const { id } = created.json();
    for (const path of ['/api/follows', `/api/follows/${id}`]) {
      const anonymous = await get(path);
      expect(JSON.stringify(anonymous.json()), path).toContain(`"url":"${REDACTED_URL}"`);
      expectNoSecrets(anonymous.body);
      expectNoSecrets((await get(path, viewer)).body);
      expect(JSON.stringify((await get(path, admin)).json()), path).toContain(`"url":"${SECRET_URL}"`);
    }
  });
});

describe("a webhook's url", () => {
  it('is shown whole to its owner and to the admin, and to no other user', async () => {
    const url = 'https://user:pa55word@hooks.example/kura?token=t0kenValue';
    const created = await kura.app.inject({ method: 'POST', url: '/api/user/webhooks', headers: { ...SAME_ORIGIN, cookie: viewer }, payload: { url } });
    expect(created.statusCode, created.body).toBe(201);
    expect((await get('/api/user/webhooks', viewer)).json()).toEqual([expect.objectContaining({ url })]);
    expect((await get('/api/webhooks', admin)).json()).toEqual([expect.objectContaining({ url, owner: 'local/viewer' })]);
    const stranger = await get('/api/user/webhooks', admin);
    expect(stranger.json()).toEqual([]);
    expect((await get('/api/webhooks', viewer)).statusCode).toBe(403);
    expect((await get('/api/webhooks')).statusCode).toBe(401);
  });
});
