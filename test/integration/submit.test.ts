import http from 'node:http';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal } from '../../src/adapters/outbound/address-policy.js';
import { createFetcher } from '../../src/adapters/sources/http-fetch.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, createToken, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { buildRecord } from '../support/factories.js';
import { queuedJobs } from '../support/jobs.js';

// POST /api/submit on a real PostgreSQL. Playlists are served by a plain HTTP server on
// 127.0.0.1; YouTube answers come from the yt-dlp STAND-IN (state in $YTDLP_STAND_IN_STATE).
let server: http.Server;
let base: string;
let kura: TestApp;
let cookies: Record<string, string>;
let stateFile: string;
const PLAYLIST = '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nseg0.ts\n';

beforeAll(async () => {
  server = http.createServer((request, response) => {
    // a redirect to another loopback address: private to the test's address policy below
    if (request.url === '/hop/index.m3u8') return void response.writeHead(302, { location: `http://127.0.0.2:${port()}/live/a/index.m3u8` }).end();
    // what a typo or a stream that is over answers
    if (request.url === '/typo/index.m3u8') return void response.writeHead(404).end();
    if (request.url === '/page/index.m3u8') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Welcome</title>');
    if (request.url === '/over/index.m3u8') return void response.writeHead(200).end('#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-ENDLIST\n');
    if (request.url === '/soon/index.m3u8') return void response.writeHead(200).end('#EXTM3U\n#EXT-X-TARGETDURATION:2\n');
    response.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' }).end(PLAYLIST);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${port()}`;
  stateFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'kura-ytdlp-')), 'state.json');
  process.env.YTDLP_STAND_IN_STATE = stateFile;
  kura = await startTestApp({}, { env: { KURA_SUBMIT_RATE_LIMIT: '5', KURA_LOOKUP_RATE_LIMIT: '3' } });
  for (const name of ['alice', 'bob', 'carol', 'dave']) await addUser(kura, name);
  cookies = { alice: await logIn(kura, 'alice'), bob: await logIn(kura, 'bob'), carol: await logIn(kura, 'carol'), dave: await logIn(kura, 'dave') };
});
afterAll(async () => {
  delete process.env.YTDLP_STAND_IN_STATE;
  await kura?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function port(): number {
  return (server.address() as { port: number }).port;
}

const youtubeSays = (state: object) => writeFile(stateFile, JSON.stringify(state));
const submit = (app: TestApp, headers: Record<string, string>, payload: object) => app.app.inject({ method: 'POST', url: '/api/submit', headers, payload });
const asUser = (name: string) => ({ ...SAME_ORIGIN, cookie: cookies[name] as string });

describe('submitting a stream', () => {
  it('needs a session cookie or a bearer token (401)', async () => {
    const response = await submit(kura, SAME_ORIGIN, { videoUrl: `${base}/live/x/index.m3u8` });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'not_logged_in' });
  });

  it('names an HLS stream as the submitter says: its title, and its channel (the channel id a slug of it); blank names are refused', async () => {
    // dave's own submissions: the others' count against their own limit
    const named = await submit(kura, asUser('dave'), { videoUrl: `${base}/live/a/index.m3u8`, title: ' Friday karaoke ', channel: 'Karaoke Night' });
    expect(named.statusCode, named.body).toBe(200);
    expect(named.json()).toMatchObject({ title: 'Friday karaoke', channelName: 'Karaoke Night', channelId: 'karaoke-night' });
    const blank = await submit(kura, asUser('dave'), { videoUrl: `${base}/live/b/index.m3u8`, title: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json()).toMatchObject({ code: 'invalid_body' });
  });

  it('keeps given names as renames do: controls become a space, bidi overrides and invisible characters go; a name that is not a JSON string or has nothing visible is refused', async () => {
    await addUser(kura, 'frank'); // his own submission limit, untouched by the other tests
    const frank = { ...SAME_ORIGIN, cookie: await logIn(kura, 'frank') };
    const named = await submit(kura, frank, {
      videoUrl: `${base}/live/named/index.m3u8`,
      title: ' Friday\u202e ekoarak\u2066 night\u0007\r\nlive\u200b\u2069 ',
      channel: '\u2067Karaoke\u2069\tNight\u0085',
    });
    expect(named.statusCode, named.body).toBe(200);
    expect(named.json()).toMatchObject({ title: 'Friday ekoarak night live', channelName: 'Karaoke Night', channelId: 'karaoke-night' });
    const refusals: Array<[object, string]> = [
      [{ title: ['a'] }, 'Field "title" must be a JSON string'],
      [{ channel: 5 }, 'Field "channel" must be a JSON string'],
      [{ title: '\u202e\u200b' }, 'Field "title" must match pattern'],
    ];
    for (const [names, detail] of refusals) {
      const refused = await submit(kura, frank, { videoUrl: `${base}/live/refused/index.m3u8`, ...names });
      expect(refused.statusCode, JSON.stringify(names)).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'invalid_body', detail: expect.stringContaining(detail) });
    }
  });

  it('makes one record for two users, with both submitters in order; a second submission adds no one', async () => {
    const url = `${base}/live/karaoke/index.m3u8`;
    const first = await submit(kura, asUser('alice'), { videoUrl: url, quality: '720p' });
    expect(first.statusCode, first.body).toBe(200);
    const { id } = first.json();
    // no name given: the host and the minute it was queued, never a piece of the path
    expect(first.json()).toMatchObject({ status: 'upcoming', submitters: ['local/alice'], platform: 'hls', sourceUrl: url, channelName: '127.0.0.1' });
    expect(first.json().title).toMatch(/^127\.0\.0\.1 \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect((await submit(kura, asUser('bob'), { videoUrl: url })).json()).toMatchObject({ id, submitters: ['local/alice', 'local/bob'] });
    expect((await submit(kura, asUser('alice'), { videoUrl: url })).json()).toMatchObject({ id, submitters: ['local/alice', 'local/bob'] });
    const { rows } = await kura.db.pool.query('select count(*)::int as n from livestreams where source_url = $1', [url]);
    expect(rows[0].n).toBe(1);
    expect(await queuedJobs(kura.db, 'watch-stream', id)).toEqual([
      expect.objectContaining({ data: { livestreamId: id }, state: 'created', singletonKey: id }),
    ]);
    expect((await kura.db.livestreams.findById(id))?.requestedQuality).toBe('720p');
  });

  it('refuses a cookie-authenticated POST from another origin, or from nowhere; a bearer POST is not held to it', async () => {
    const url = `${base}/live/csrf/index.m3u8`;
    const strangers: Array<Record<string, string>> = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, {}];
    for (const headers of strangers) {
      const response = await submit(kura, { ...headers, cookie: cookies.alice as string }, { videoUrl: url });
      expect(response.statusCode, JSON.stringify(headers)).toBe(403);
      expect(response.json()).toMatchObject({ code: 'cross_origin_refused' });
    }
    const { rows } = await kura.db.pool.query('select count(*)::int as n from livestreams where source_url = $1', [url]);
    expect(rows[0].n).toBe(0);
    expect((await submit(kura, { 'sec-fetch-site': 'same-origin', cookie: cookies.alice as string }, { videoUrl: url })).statusCode).toBe(200);
    const { token } = await createToken(kura, cookies.bob as string);
    const bearer = await submit(kura, { origin: 'https://evil.example', authorization: `Bearer ${token}` }, { videoUrl: url });
    expect(bearer.statusCode, bearer.body).toBe(200);
    expect(bearer.json().submitters).toEqual(['local/alice', 'local/bob']);
  });

  it("takes the original web client's post: JSON as text/plain, quality a number (a height, 0 or null the best)", async () => {
    await addUser(kura, 'olga'); // her own submission limit, untouched by the other tests
    const olga = { ...SAME_ORIGIN, cookie: await logIn(kura, 'olga'), 'content-type': 'text/plain;charset=UTF-8' };
    const post = (body: object) => kura.app.inject({ method: 'POST', url: '/api/submit', headers: olga, payload: JSON.stringify(body) });
    const qualities: Array<[unknown, string | null]> = [
      [0, null],
      [720, '720p'],
      [null, null],
    ];
    for (const [quality, kept] of qualities) {
      const response = await post({ videoUrl: `${base}/live/original-${quality}/index.m3u8`, quality });
      expect(response.statusCode, response.body).toBe(200);
      expect((await kura.db.livestreams.findById(response.json().id))?.requestedQuality, String(quality)).toBe(kept);
    }
    for (const quality of [5, 99, 10_000, 720.5, true, '720x']) {
      expect((await post({ videoUrl: `${base}/live/original-bad/index.m3u8`, quality })).json(), String(quality)).toMatchObject({
        status: 400,
        code: 'invalid_body',
      });
    }
    const broken = await kura.app.inject({ method: 'POST', url: '/api/submit', headers: olga, payload: '{"videoUrl":' });
    expect(broken.json()).toMatchObject({ status: 400, code: 'malformed_json' });
  });

  it('refuses a cross-site text/plain post with the session cookie, as any other (403), and reads nothing of it', async () => {
    const url = `${base}/live/csrf-text/index.m3u8`;
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }]) {
      const response = await kura.app.inject({
        method: 'POST',
        url: '/api/submit',
        headers: { ...headers, cookie: cookies.alice as string, 'content-type': 'text/plain;charset=UTF-8' },
        payload: JSON.stringify({ videoUrl: url }),
      });
      expect(response.statusCode, JSON.stringify(headers)).toBe(403);
      expect(response.json()).toMatchObject({ code: 'cross_origin_refused' });
    }
    expect(await kura.db.livestreams.findActiveBySource(url)).toBeNull();
  });

  it('refuses ended streams and videos that are no livestream with the reason (400)', async () => {
    await youtubeSays({ liveStatus: 'was_live' });
    const ended = await submit(kura, asUser('alice'), { videoUrl: 'https://www.youtube.com/watch?v=AAAAAAAAAAA' });
    expect(ended.statusCode).toBe(400);
    expect(ended.json()).toMatchObject({ code: 'invalid_source', detail: expect.stringMatching(/ended|was live/i) });
    const notAStream = await submit(kura, asUser('alice'), { videoUrl: 'https://example.org/video.mp4' });
    expect(notAStream.statusCode).toBe(400);
    expect(notAStream.json().code).toBe('invalid_source');
    const badQuality = await submit(kura, asUser('alice'), { videoUrl: `${base}/live/q/index.m3u8`, quality: 'ultra' });
    expect(badQuality.statusCode).toBe(400);
  });

  it('refuses an HLS URL that cannot be read now, with the reason, and queues nothing; a playlist without segments yet is queued', async () => {
    await addUser(kura, 'erin'); // her own submission limit, untouched by the other tests
    const erin = { ...SAME_ORIGIN, cookie: await logIn(kura, 'erin') };
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refusals = {
      [`${base}/typo/index.m3u8`]: /^The playlist cannot be read: .*HTTP 404\. To record a stream that is not on air yet, follow its playlist URL/,
      [`http://127.0.0.1:${closedPort}/live/index.m3u8`]: /^The playlist cannot be read: .*(ECONNREFUSED|refused)/,
      [`${base}/page/index.m3u8`]: /^The playlist cannot be read: it is not an HLS playlist/,
      [`${base}/over/index.m3u8`]: /^The playlist has ended and lists no segment/,
    };
    for (const [videoUrl, reason] of Object.entries(refusals)) {
      const refused = await submit(kura, erin, { videoUrl });
      expect(refused.statusCode, videoUrl).toBe(400);
      expect(refused.json(), videoUrl).toMatchObject({ code: 'invalid_source', detail: expect.stringMatching(reason) });
      expect(await kura.db.livestreams.findActiveBySource(videoUrl), videoUrl).toBeNull();
    }
    const soon = await submit(kura, erin, { videoUrl: `${base}/soon/index.m3u8` });
    expect(soon.statusCode, soon.body).toBe(200);
    expect(soon.json()).toMatchObject({ status: 'upcoming', submitters: ['local/erin'] });
  });

  it('refuses a YouTube video archived already (409 already_archived), adding no submitter and queuing nothing', async () => {
    await kura.load([buildRecord({ id: 'CCCCCCCCCCC', finished: true, submitters: ['discord/7'] })]);
    await youtubeSays({ liveStatus: 'is_upcoming' });
    await addUser(kura, 'dora'); // her own submission limit, untouched by the other tests
    const dora = { ...SAME_ORIGIN, cookie: await logIn(kura, 'dora') };
    const again = await submit(kura, dora, { videoUrl: 'https://www.youtube.com/watch?v=CCCCCCCCCCC' });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json()).toMatchObject({ status: 409, code: 'already_archived', detail: expect.stringContaining('CCCCCCCCCCC') });
    expect((await kura.db.livestreams.findById('CCCCCCCCCCC'))?.submitters).toEqual(['discord/7']);
    expect(await queuedJobs(kura.db, 'watch-stream', 'CCCCCCCCCCC')).toEqual([]);
  });

  it('limits submissions per user: the sixth within the hour is 429 with Retry-After', async () => {
    for (let i = 0; i < 5; i++) expect((await submit(kura, asUser('carol'), { videoUrl: `${base}/live/c${i}/index.m3u8` })).statusCode).toBe(200);
    const limited = await submit(kura, asUser('carol'), { videoUrl: `${base}/live/c5/index.m3u8` });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'too_many_requests' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3500);
    expect((await submit(kura, asUser('bob'), { videoUrl: `${base}/live/c5/index.m3u8` })).statusCode).toBe(200); // per user
  });

  it('limits /api/validate and /api/qualities per client address (429 with Retry-After)', async () => {
    const lookup = (route: string) =>
      kura.app.inject({ url: `/api/${route}?url=${encodeURIComponent(`${base}/live/v/index.m3u8`)}`, remoteAddress: '203.0.113.77' });
    for (const route of ['validate', 'qualities', 'validate']) expect((await lookup(route)).statusCode).toBe(200);
    const limited = await lookup('qualities');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('operator rules', () => {
  let strict: TestApp;
  let seam: TestApp;
  let strictCookie: string;
  let seamCookie: string;
  beforeAll(async () => {
    // the real address policy: nothing private, loopback or link-local; YouTube not taken here
    strict = await startTestApp({}, { env: { KURA_ALLOW_PRIVATE_SOURCES: 'false', KURA_SOURCES: 'hls' } });
    // a test address policy (a DOUBLE of the public internet): 127.0.0.1 counts as public, every other address as the real policy says
    const fetcher = createFetcher({ allowPrivate: false, addressRefusal: (address) => (address === '127.0.0.1' ? null : addressRefusal(address)) });
    seam = await startTestApp({}, { env: { KURA_ALLOW_PRIVATE_SOURCES: 'false', KURA_ALLOWED_CHANNELS: '127.0.0.1' }, fetcher });
    await addUser(strict, 'dana');
    await addUser(seam, 'erin');
    strictCookie = await logIn(strict, 'dana');
    seamCookie = await logIn(seam, 'erin');
  });
  afterAll(async () => {
    await strict?.close();
    await seam?.close();
  });

  it('refuses private, loopback and link-local targets, by literal address and by DNS name', async () => {
    const targets = [
      `http://127.0.0.1:${port()}/live/a/index.m3u8`,
      'http://[::1]/live/index.m3u8',
      'http://10.1.2.3/live/index.m3u8',
      'http://192.168.1.10/live/index.m3u8',
      'http://169.254.169.254/latest/index.m3u8',
      'http://[fe80::1]/live/index.m3u8',
      `http://localhost:${port()}/live/a/index.m3u8`,
    ];
    for (const videoUrl of targets) {
      const response = await submit(strict, { ...SAME_ORIGIN, cookie: strictCookie }, { videoUrl });
      expect(response.statusCode, videoUrl).toBe(400);
      expect(response.json().detail, videoUrl).toMatch(/only public addresses are fetched: .* (private|loopback|link-local) (address|name)/);
    }
    const { rows } = await strict.db.pool.query('select count(*)::int as n from livestreams');
    expect(rows[0].n).toBe(0);
  });

  it('refuses a public URL that redirects to a private address', async () => {
    const direct = await submit(seam, { ...SAME_ORIGIN, cookie: seamCookie }, { videoUrl: `${base}/live/a/index.m3u8` });
    expect(direct.statusCode, direct.body).toBe(200);
    const redirected = await submit(seam, { ...SAME_ORIGIN, cookie: seamCookie }, { videoUrl: `${base}/hop/index.m3u8` });
    expect(redirected.statusCode).toBe(400);
    expect(redirected.json()).toMatchObject({ code: 'invalid_source', detail: expect.stringContaining('127.0.0.2') });
  });

  it('takes only the source kinds of KURA_SOURCES and the channels of KURA_ALLOWED_CHANNELS', async () => {
    await youtubeSays({ liveStatus: 'is_upcoming' });
    const youtube = 'https://www.youtube.com/watch?v=BBBBBBBBBBB';
    const kind = await submit(strict, { ...SAME_ORIGIN, cookie: strictCookie }, { videoUrl: youtube });
    expect(kind.statusCode).toBe(400);
    expect(kind.json().detail).toContain('does not take youtube');
    const channel = await submit(seam, { ...SAME_ORIGIN, cookie: seamCookie }, { videoUrl: youtube });
    expect(channel.statusCode).toBe(400);
    expect(channel.json().detail).toContain('only archives the channels');
    const validation = await seam.app.inject({ url: `/api/validate?url=${encodeURIComponent(youtube)}` });
    expect(validation.json()).toMatchObject({ valid: false, reason: expect.stringContaining('only archives the channels') });
  });
});
