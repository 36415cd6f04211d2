import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { buildRecord } from '../support/factories.js';

let kura: TestApp;
beforeEach(async () => {
  kura = await startTestApp();
});
afterEach(() => kura.close());

describe('GET /api/stats/growth', () => {
  it('answers an empty list on an empty database', async () => {
    const response = await kura.app.inject({ url: '/api/stats/growth' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
  });

  it('counts finished records per UTC month of their scheduled start, with running totals; queued and failed left out', async () => {
    await kura.load([
      buildRecord({ id: 'jan-a', scheduledStart: '2025-01-01T00:30:00.000Z', fileSizeBytes: 1_000, length: 60 }),
      buildRecord({ id: 'jan-b', scheduledStart: '2025-01-31T23:59:59.000Z', fileSizeBytes: 2_000, length: 120 }),
      buildRecord({ id: 'mar-a', scheduledStart: '2025-03-15T12:00:00.000Z', fileSizeBytes: 4_000, length: 30 }),
      buildRecord({ id: 'feb-upcoming', scheduledStart: '2025-02-10T12:00:00.000Z', finished: false }),
      buildRecord({ id: 'feb-failed', scheduledStart: '2025-02-11T12:00:00.000Z', finished: false, status: 'failed', fileSizeBytes: 9_000, length: 9 }),
    ]);
    const response = await kura.app.inject({ url: '/api/stats/growth' });
    expect(response.json()).toEqual([
      { month: '2025-01', count: 2, fileSizeBytes: 3_000, lengthSeconds: 180, totalCount: 2, totalFileSizeBytes: 3_000 },
      { month: '2025-03', count: 1, fileSizeBytes: 4_000, lengthSeconds: 30, totalCount: 3, totalFileSizeBytes: 7_000 },
    ]);
    const openapi = (await kura.app.inject({ url: '/api/openapi.json' })).json();
    expect(openapi.paths['/api/stats/growth'].get.responses['200']).toBeDefined();
  });
});

describe('the web UI as the api serves it', () => {
  it('answers index.html (no-cache) at every client route, and assets pre-compressed and cached for a year', async () => {
    for (const url of ['/', '/queue', '/history', '/stats', '/login', '/tokens', '/follows', '/follows/kVx3abcdefgh']) {
      const page = await kura.app.inject({ url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.body).toContain('<div id="app"></div>');
    }
    const index = (await kura.app.inject({ url: '/history' })).body;
    const script = /src="(\/assets\/index-[^"]+\.js)"/.exec(index)?.[1] as string;
    expect(script).toBeDefined();
    const asset = await kura.app.inject({ url: script, headers: { 'accept-encoding': 'gzip' } });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-encoding']).toBe('gzip');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toMatch(/javascript/);
    // the encoding is chosen by the request's accept-encoding: a shared cache must keep one copy per encoding
    expect(asset.headers.vary).toBe('accept-encoding');
    // the API and unknown paths keep their problem answers
    expect((await kura.app.inject({ url: '/api/nope' })).headers['content-type']).toContain('application/problem+json');
    const unknownAsset = await kura.app.inject({ url: '/assets/nope.js' });
    expect(unknownAsset.statusCode).toBe(404);
    expect(unknownAsset.json()).toMatchObject({ code: 'route_not_found' });
  });

  it('writes an archive page’s Open Graph tags into its HTML, escaped', async () => {
    await kura.load([buildRecord({ id: 'og-1', title: 'Karaoke <script>alert("x")</script> & more', channelName: 'Chan "Q"', length: 3723 })]);
    const page = await kura.app.inject({ url: '/archive/og-1' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<meta property="og:title" content="Karaoke &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more">');
    expect(page.body).toContain(`<meta property="og:url" content="${TEST_PUBLIC_URL}/archive/og-1">`);
    expect(page.body).toContain('<meta property="og:description" content="Chan &quot;Q&quot; · 2024-01-01 · 1 h 2 min · archived on Kura">');
    expect(page.body).toContain('<meta property="og:image" content="https://i.ytimg.com/vi/og-1/maxresdefault.jpg">');
    expect(page.body).not.toContain('<script>alert');
    expect(page.body.match(/<title>/g)).toHaveLength(1);

    const unknown = await kura.app.inject({ url: '/archive/no-such-record' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('<div id="app"></div>');
    expect(unknown.body).not.toContain('og:title');
  });

  it('says the moment a link to one opens at (?t=): og:url with it in one form, the description from it, og:video from it; the canonical page without it', async () => {
    await kura.load([buildRecord({ id: 'og-t', channelName: 'Chan', length: 7200 })]);
    const head = async (query: string) => {
      const page = await kura.app.inject({ url: `/archive/og-t${query}` });
      expect(page.statusCode, query).toBe(200);
      const tag = (property: string) => new RegExp(`<meta property="${property}" content="([^"]*)">`).exec(page.body)?.[1];
      return {
        url: tag('og:url'),
        description: tag('og:description'),
        video: tag('og:video'),
        canonical: /<link rel="canonical" href="([^"]*)">/.exec(page.body)?.[1],
      };
    };
    const page = `${TEST_PUBLIC_URL}/archive/og-t`;
    for (const t of ['1h02m03s', '3723', '1:02:03', '3723.9']) {
      expect(await head(`?t=${encodeURIComponent(t)}`), t).toEqual({
        url: `${page}?t=1h02m03s`,
        description: 'From 1:02:03 · Chan · 2024-01-01 · 2 h 0 min · archived on Kura',
        video: 'https://archive.example.org/og-t.mp4#t=3723',
        canonical: page,
      });
    }
    // no time, past the end of the recording, or given twice: the page as without one (and never a 400)
    for (const query of ['', '?t=soon', '?t=2h00m00s', '?t=1&t=2']) {
      expect(await head(query), query).toEqual({
        url: page,
        description: 'Chan · 2024-01-01 · 2 h 0 min · archived on Kura',
        video: 'https://archive.example.org/og-t.mp4',
        canonical: page,
      });
    }
  });

  it('writes its HTML in the language the app will show: the kura-lang cookie, else Accept-Language by weight, else English', async () => {
    await kura.load([
      buildRecord({ id: 'og-ja', title: '歌枠', channelId: 'UCja', channelName: 'Chan', length: 3723, scheduledStart: '2024-01-01T12:00:00.000Z' }),
    ]);
    const lang = (body: string) => /<html lang="([^"]+)"/.exec(body)?.[1];
    const get = (url: string, headers: Record<string, string>) => kura.app.inject({ url, headers: { accept: 'text/html', ...headers } });
    expect(lang((await get('/history', {})).body)).toBe('en');
    expect(lang((await get('/history', { 'accept-language': 'ja-JP,ja;q=0.9,en;q=0.8' })).body)).toBe('ja');
    // weights decide, not the order; a language Kura does not speak is passed over
    expect(lang((await get('/history', { 'accept-language': 'en;q=0.5, fr, ja;q=0.7' })).body)).toBe('ja');
    expect(lang((await get('/history', { 'accept-language': 'de-DE, fr' })).body)).toBe('en');
    // a refusal (q=0, in any of its spellings) is honoured; a weight no browser sends says nothing
    expect(lang((await get('/history', { 'accept-language': 'ja;Q=0.000, en;q=0.1' })).body)).toBe('en');
    expect(lang((await get('/history', { 'accept-language': 'en;q=0.0000, ja;q=0.2' })).body)).toBe('ja');
    expect(lang((await get('/history', { 'accept-language': 'en;q=1.5, ja;q=0.2' })).body)).toBe('ja');
    expect(lang((await get('/history', { 'accept-language': ';;,=q, ja' })).body)).toBe('ja');
    // the person's pick beats the browser's languages; an unknown pick is ignored
    expect(lang((await get('/history', { 'accept-language': 'en-US', cookie: 'kura-lang=ja' })).body)).toBe('ja');
    expect(lang((await get('/history', { 'accept-language': 'ja', cookie: 'kura-lang=xx' })).body)).toBe('ja');

    const history = await get('/history', { 'accept-language': 'ja' });
    expect(history.headers.vary).toBe('accept-language, cookie');
    expect(history.body).toContain('<title>Kura · ライブ配信アーカイブ</title>');
    expect(history.body).toContain('<link rel="alternate" type="application/atom+xml" title="Kura：アーカイブ" href="/feeds/archives.atom">');
    const archive = await get('/archive/og-ja', { 'accept-language': 'ja' });
    expect(archive.body).toContain('<meta property="og:description" content="Chan · 2024-01-01 · 1時間2分 · Kuraにアーカイブ済み">');
    const moment = await get('/archive/og-ja?t=90', { 'accept-language': 'ja' });
    expect(moment.body).toContain('content="1:30から · Chan ·');
    // a page nothing answers is the app's not-found page, in the language asked for
    const missing = await get('/no-such-page', { 'accept-language': 'ja' });
    expect(missing.statusCode).toBe(404);
    expect(lang(missing.body)).toBe('ja');
    expect(missing.headers.vary).toBe('accept-language, cookie');
    const channel = await get('/channel/UCja', { 'accept-language': 'ja' });
    expect(channel.body).toContain('<meta property="og:description" content="アーカイブ1件 · 動画1時間2分 · Kuraにて">');
    expect(channel.body).toContain('title="Chanのアーカイブ"');
    const english = await get('/channel/UCja', {});
    expect(english.body).toContain('<meta property="og:description" content="1 archive · 1 h 2 min of video · on Kura">');
  });
});
