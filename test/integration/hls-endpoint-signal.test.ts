import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHlsEndpointSignal } from '../../src/adapters/follows/hls-endpoint-signal.js';
import { createFetcher } from '../../src/adapters/sources/http-fetch.js';
import { followOf } from '../support/follows.js';
import type { Follow } from '../../src/core/follows/follow.js';
import { startHlsEndpointFixture } from '../support/hls-endpoint-fixture.js';

// The `playlist` signal of an HLS endpoint follow against a real HTTP server on loopback: what an
// endpoint that is live only sometimes answers (404 while offline, a live playlist, an ended one)
// and what a broken one does.
const media = (segments: number, ended = false) =>
  [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    '#EXT-X-TARGETDURATION:1',
    '#EXT-X-MEDIA-SEQUENCE:40',
    ...Array.from({ length: segments }, (_, i) => `#EXTINF:1.0,\nseg${40 + i}.ts`),
    ...(ended ? ['#EXT-X-ENDLIST'] : []),
    '',
  ].join('\n');
const master = [
  '#EXTM3U',
  '#EXT-X-STREAM-INF:BANDWIDTH=6000000,RESOLUTION=1920x1080',
  'ended-1080.m3u8',
  '#EXT-X-STREAM-INF:BANDWIDTH=2500000,RESOLUTION=1280x720',
  'live-720.m3u8',
  '',
].join('\n');
const ROUTES: Record<string, [number, string]> = {
  '/live.m3u8': [200, media(3)],
  '/empty.m3u8': [200, media(0)],
  '/ended.m3u8': [200, media(3, true)],
  '/gone.m3u8': [410, ''],
  '/master.m3u8': [200, master],
  '/ended-1080.m3u8': [200, media(5, true)],
  '/live-720.m3u8': [200, media(2)],
  '/broken.m3u8': [500, 'upstream timed out'],
  '/html.m3u8': [200, '<html><body>Stream offline</body></html>'],
};

let server: http.Server;
let base: string;
const received: string[] = [];
beforeAll(async () => {
  server = http.createServer((request, response) => {
    received.push(request.url ?? '/');
    const [status, body] = ROUTES[request.url ?? '/'] ?? [404, 'not found'];
    response.writeHead(status, { 'content-type': 'application/vnd.apple.mpegurl' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const signal = createHlsEndpointSignal({ fetcher: createFetcher({ allowPrivate: true }) });

function follow(url: string, quality: string | null = null): Follow {
  const rules = { titleInclude: null, titleExclude: null, membersOnly: 'skip' as const, quality };
  return followOf({ kind: 'hls_endpoint', url, channelId: 'karaoke-night', channelName: 'Karaoke night', rules });
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('look should have thrown'),
    (error: Error) => error,
  );

describe('the playlist signal of an HLS endpoint', () => {
  it('is named playlist and paced by the endpoint host', () => {
    expect(signal.name).toBe('playlist');
    expect(signal.host(follow(`${base}/live.m3u8`))).toBe(new URL(base).host);
  });

  it('answers a live media playlist with one candidate: the playlist URL, no id, where the playlist is', async () => {
    const url = `${base}/live.m3u8`;
    const position = `segment 42: ${base}/seg42.ts`; // its last segment: a playlist that does not move is an old broadcast
    expect(await signal.look(follow(url))).toEqual([{ url, id: null, liveStatus: 'live', title: null, scheduledStart: null, membersOnly: null, position }]);
  });

  it('answers an offline endpoint (404, 410, no segment yet, ENDLIST) with no candidate and no error', async () => {
    for (const name of ['offline', 'gone', 'empty', 'ended']) expect(await signal.look(follow(`${base}/${name}.m3u8`)), name).toEqual([]);
  });

  it('follows a master playlist to the variant of the follow quality', async () => {
    const url = `${base}/master.m3u8`;
    // 720p is on air; the best variant (1080p) has ended
    expect(await signal.look(follow(url, '720p'))).toEqual([expect.objectContaining({ url, id: null, liveStatus: 'live' })]);
    expect(await signal.look(follow(url, null))).toEqual([]);
    expect(received).toContain('/live-720.m3u8');
    expect(received).toContain('/ended-1080.m3u8');
  });

  it('fails with the reason on a 5xx, a body that is no playlist, and a refused connection', async () => {
    expect((await failure(signal.look(follow(`${base}/broken.m3u8`)))).message).toBe(`${base}/broken.m3u8: HTTP 500`);
    expect((await failure(signal.look(follow(`${base}/html.m3u8`)))).message).toBe(`${base}/html.m3u8: not an HLS playlist (it does not start with #EXTM3U)`);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as { port: number }).port}/index.m3u8`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect((await failure(signal.look(follow(closedUrl)))).message).toMatch(new RegExp(`^${closedUrl}: .*ECONNREFUSED`));
  });

  it('fails, without asking, when the outbound policy refuses a private address', async () => {
    const strict = createHlsEndpointSignal({ fetcher: createFetcher({ allowPrivate: false }) });
    const before = received.length;
    const error = await failure(strict.look(follow(`${base}/live.m3u8`)));
    expect(error.message).toMatch(/refused, only public addresses are fetched/);
    expect(received.length).toBe(before);
  });
});

describe('the playlist signal against a real endpoint that broadcasts, goes offline and broadcasts again', () => {
  it('sees nothing while offline and one live candidate during each broadcast', async () => {
    const endpoint = await startHlsEndpointFixture();
    try {
      const look = () => signal.look(follow(endpoint.url));
      expect(await look()).toEqual([]);
      const first = endpoint.broadcast({ seconds: 3 });
      await first.onAir;
      expect(await look()).toEqual([expect.objectContaining({ url: endpoint.url, liveStatus: 'live' })]);
      expect(await first.ended).toBe(3);
      await endpoint.goOffline();
      expect(await look()).toEqual([]);
      await endpoint.offlineAnswers(1);
      const second = endpoint.broadcast({ seconds: 2 });
      await second.onAir;
      expect(await look()).toEqual([expect.objectContaining({ url: endpoint.url, liveStatus: 'live' })]);
      expect(await second.ended).toBe(2);
      expect(endpoint.requests.filter((r) => second.segmentRequest.test(r))).toEqual([]); // a look reads the playlist only
    } finally {
      await endpoint.close();
    }
  });
});
