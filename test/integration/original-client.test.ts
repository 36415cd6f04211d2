import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLivestreams } from '../../src/core/records/import-livestreams.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, sessionCookieOf } from '../support/accounts.js';
import { buildRecord } from '../support/factories.js';
import { startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';

// The original service's own web client (mellowagain/pomu, src/lib: Nav.svelte, api.ts,
// VideoInput.svelte, VideoEntry.svelte, VideoLog.svelte) against Kura with
// KURA_ORIGINAL_HEADERS=true: each request as its source sends it, each answer read as it reads it.
// Its login runs through oauth2-mock-server (a real OIDC provider DOUBLE on loopback); Discord, the
// client's own button, cannot be reached from here, so its test stops at the redirect.
let idp: OAuth2Server;
let kura: TestApp;
let fixture: HlsFixture;
beforeAll(async () => {
  idp = new OAuth2Server();
  await idp.issuer.keys.generate('RS256');
  await idp.start(0, '127.0.0.1');
  kura = await startTestApp(
    { originalHeaders: true },
    {
      env: {
        OIDC_ISSUER: idp.issuer.url as string,
        OIDC_CLIENT_ID: 'kura',
        OIDC_CLIENT_SECRET: 'kura-secret',
        DISCORD_CLIENT_ID: 'discord-app',
        DISCORD_CLIENT_SECRET: 'x',
      },
    },
  );
  fixture = await startHlsFixture({ seconds: 1 });
  const live = path.join(fixture.dir, 'live');
  await writeFile(path.join(live, 'index.m3u8'), ['#EXTM3U', '#EXT-X-TARGETDURATION:1', '#EXTINF:1.0,', 'seg00000.ts', ''].join('\n'));
  for (const height of ['360', '720']) await copyFile(path.join(live, 'index.m3u8'), path.join(live, `${height}.m3u8`));
  await writeFile(
    path.join(live, 'master.m3u8'),
    [
      '#EXTM3U',
      '#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360',
      '360.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720',
      '720.m3u8',
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await kura?.close();
  await fixture?.close();
  await idp?.stop();
});

/** `fetch(url).then((r) => r.json())` as the client writes it: the parsed body, or the error that makes it show "logged out" / its fallback. */
const clientJson = (response: LightMyRequestResponse): unknown => JSON.parse(response.body);
/** Svelte's `{#await user then user}` block: `capitalize(user.provider)`, which throws for anything but a user. */
const capitalize = (user: unknown) => {
  const provider = (user as { provider: string }).provider;
  return provider[0]?.toUpperCase() + provider.slice(1);
};

describe('logging in and out from the original web client', () => {
  it('reads an anonymous GET /api/user as "logged out" (a body that is not JSON), so it shows its Login item', async () => {
    const anonymous = await kura.app.inject({ url: '/api/user' });
    expect(anonymous.statusCode).toBe(401);
    expect(() => clientJson(anonymous)).toThrow(SyntaxError);
    // Kura's own web client asks with optional=true, and is answered as before
    expect((await kura.app.inject({ url: '/api/user?optional=true' })).json()).toBeNull();
  });

  it('starts the same login from its link /oauth/{provider}, and comes back to / logged in as a user it can show', async () => {
    const discord = await kura.app.inject({ url: '/oauth/discord' });
    expect(discord.statusCode).toBe(302);
    const authorize = new URL(discord.headers.location as string);
    expect(authorize.origin + authorize.pathname).toBe('https://discord.com/oauth2/authorize');
    expect(authorize.searchParams.get('redirect_uri')).toBe('http://kura.test/auth/discord/callback');

    // every token the provider signs in this login names Vera (the access token's and the ID token's)
    const sign = (token: { payload: Record<string, unknown> }) => Object.assign(token.payload, { sub: 'viewer-7', name: 'Vera' });
    idp.service.on('beforeTokenSigning', sign);
    const start = await kura.app.inject({ url: '/oauth/oidc' });
    expect(start.statusCode).toBe(302);
    const attempt = start.cookies.find((cookie) => cookie.name === 'kura_login');
    const atProvider = await fetch(start.headers.location as string, { redirect: 'manual' });
    const back = new URL(atProvider.headers.get('location') as string);
    const done = await kura.app.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: `kura_login=${attempt?.value}` } });
    idp.service.off('beforeTokenSigning', sign);
    expect(done.statusCode, done.body).toBe(302);
    expect(done.headers.location).toBe('http://kura.test/');
    const me = clientJson(await kura.app.inject({ url: '/api/user', headers: { cookie: sessionCookieOf(done) } }));
    expect(me).toMatchObject({ id: 'viewer-7', name: 'Vera' });
    expect(capitalize(me)).toBe('Oidc');
  });

  it('logs out with its form post to /logout: the session ends and the browser goes to /', async () => {
    await addUser(kura, 'lena');
    const cookie = await logIn(kura, 'lena');
    expect(clientJson(await kura.app.inject({ url: '/api/user', headers: { cookie } }))).toMatchObject({ id: 'lena' });
    // a <form method="POST" action="/logout"> with no fields, submitted from the page
    const logout = await kura.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { cookie, origin: 'http://kura.test', 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(logout.statusCode, logout.body).toBe(303);
    expect(logout.headers.location).toBe('http://kura.test/');
    expect(logout.cookies.find((c) => c.name === 'kura_session')?.value).toBe('');
    const after = await kura.app.inject({ url: '/api/user', headers: { cookie } });
    expect(after.statusCode).toBe(401); // the session itself ended, not only the cookie
  });

  it('refuses a logout another site posts', async () => {
    const forced = await kura.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(forced.statusCode).toBe(403);
  });
});

describe('choosing a quality in the original web client', () => {
  it('offers codes it sends back meaningfully (`+code`), so the quality chosen is the one recorded', async () => {
    const master = `${fixture.url.replace('index.m3u8', 'master.m3u8')}`;
    const items = clientJson(await kura.app.inject({ url: `/api/qualities?url=${encodeURIComponent(master)}` })) as Array<{ code: number; best: boolean }>;
    expect(items).toEqual([
      { code: 720, resolution: '1280x720', best: true },
      { code: 360, resolution: '640x360', best: false },
    ]);
    // VideoInput.svelte: id = item.code.toString(), then quality: +selectedId in a text/plain JSON body
    await addUser(kura, 'quinn');
    const cookie = await logIn(kura, 'quinn');
    const chosen = items.find((item) => item.code === 360)?.code.toString() as string;
    const submitted = await kura.app.inject({
      method: 'POST',
      url: '/api/submit',
      headers: { cookie, origin: 'http://kura.test', 'content-type': 'text/plain;charset=UTF-8' },
      payload: JSON.stringify({ videoUrl: master, quality: +chosen }),
    });
    expect(submitted.statusCode, submitted.body).toBe(200);
    expect((await kura.db.livestreams.findById(submitted.json().id))?.requestedQuality).toBe('360p');
  });
});

describe('records imported from the original service, in its web client', () => {
  beforeAll(async () => {
    await importLivestreams(
      kura.db,
      [
        buildRecord({ id: 'origImport1', submitters: ['pomu.app', '123456789'], downloadUrl: '/api/download/origImport1/video' }, 1),
        buildRecord({ id: 'origImport2', submitters: ['discord/555'], downloadUrl: 'https://bucket.example/origImport2.mp4' }, 2),
      ],
      undefined,
      'https://old.example',
    );
  });

  it('names each submitter as the client shows them: the old instance automatic, an imported id, someone unknown by its fallback', async () => {
    const record = clientJson(await kura.app.inject({ url: '/api/video/origImport1' })) as { submitters: string[] };
    expect(record.submitters).toEqual(['legacy/pomu.app', 'legacy/123456789']);
    // VideoEntry.svelte: fetch(`/api/user/${provider}/${id}`).then((res) => res.json()), its .catch a fallback
    const names = await Promise.all(
      [...record.submitters, 'discord/555'].map(async (submitter) => {
        const [provider, id] = submitter.split('/');
        try {
          return (clientJson(await kura.app.inject({ url: `/api/user/${provider}/${id}` })) as { name: string }).name;
        } catch {
          return `${id} (using ${provider})`;
        }
      }),
    );
    expect(names).toEqual(['pomu.app (automatic)', '123456789 (imported)', '555 (using discord)']);
  });

  it('opens the encoder log of an imported record where its video is: at the old instance, or says it was not imported', async () => {
    // VideoLog.svelte: fetch(downloadUrl.replace("/video", "/ffmpeg"), { method: "HEAD" }), then GET
    const { downloadUrl } = clientJson(await kura.app.inject({ url: '/api/video/origImport1' })) as { downloadUrl: string };
    const logUrl = new URL(downloadUrl.replace('/video', '/ffmpeg'));
    for (const method of ['HEAD', 'GET'] as const) {
      const log = await kura.app.inject({ method, url: logUrl.pathname });
      expect(log.statusCode, method).toBe(307);
      expect(log.headers.location).toBe('https://old.example/api/download/origImport1/ffmpeg');
    }
    const video = await kura.app.inject({ url: new URL(downloadUrl).pathname });
    expect(video.headers.location).toBe('https://old.example/api/download/origImport1/video');
    const elsewhere = await kura.app.inject({ url: '/api/download/origImport2/ffmpeg' });
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toMatchObject({ code: 'log_not_imported', detail: expect.stringContaining('imported without its encoder log') });
  });
});
