import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal } from '../../src/adapters/outbound/address-policy.js';
import { createFetcher } from '../../src/adapters/sources/http-fetch.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';

// POST /api/submit and GET /api/validate where private sources are refused (the default), on a
// real PostgreSQL. A playlist server on 127.0.0.1 receives every request that gets through.
const PLAYLIST = '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nseg0.ts\n';
const received: string[] = [];
let server: http.Server;
let strict: TestApp;
let seam: TestApp;
let strictCookie: string;
let seamCookie: string;

/** A DNS DOUBLE for the seam app: these names, these answers; nothing else resolves. */
const DNS: Record<string, string[]> = {
  'media.kura.test': ['127.0.0.1'],
  'internal.kura.test': ['10.20.30.40'],
  'metadata.kura.test': ['169.254.169.254'],
  'dual.kura.test': ['127.0.0.1', 'fd00::7'],
};
const resolve = async (hostname: string): Promise<LookupAddress[]> => {
  const answer = DNS[hostname];
  if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const port = () => (server.address() as { port: number }).port;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    received.push(`${request.headers.host} ${request.url}`);
    const redirect = /^\/redirect\/(.+)\/index\.m3u8$/.exec(request.url ?? '');
    if (redirect) return void response.writeHead(302, { location: decodeURIComponent(redirect[1] as string).replace('PORT', String(port())) }).end();
    response.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' }).end(PLAYLIST);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const env = { KURA_ALLOW_PRIVATE_SOURCES: 'false', KURA_SOURCES: 'hls', KURA_SUBMIT_RATE_LIMIT: '1000', KURA_LOOKUP_RATE_LIMIT: '1000' };
  // the production fetcher and address policy
  strict = await startTestApp({}, { env });
  // the real policy, except that the test server's 127.0.0.1 stands for the public internet; names resolve through the DNS double
  const fetcher = createFetcher({ allowPrivate: false, resolve, addressRefusal: (address) => (address === '127.0.0.1' ? null : addressRefusal(address)) });
  seam = await startTestApp({}, { env, fetcher });
  await addUser(strict, 'sam');
  await addUser(seam, 'sue');
  strictCookie = await logIn(strict, 'sam');
  seamCookie = await logIn(seam, 'sue');
});
afterAll(async () => {
  await strict?.close();
  await seam?.close();
  await new Promise<void>((closed) => server.close(() => closed()));
});

/** Both doors a URL comes in by: the reason `POST /api/submit` gives (400) must be the one `GET /api/validate` gives. */
async function refusalOf(app: TestApp, cookie: string, videoUrl: string): Promise<string> {
  const submitted = await app.app.inject({ method: 'POST', url: '/api/submit', headers: { ...SAME_ORIGIN, cookie }, payload: { videoUrl } });
  expect(submitted.statusCode, `${videoUrl}: ${submitted.body}`).toBe(400);
  expect(submitted.json().code).toBe('invalid_source');
  const validated = await app.app.inject({ url: `/api/validate?url=${encodeURIComponent(videoUrl)}` });
  expect(validated.statusCode).toBe(200);
  expect(validated.json()).toMatchObject({ valid: false, reason: submitted.json().detail });
  return submitted.json().detail as string;
}

describe('SSRF spellings at submission', () => {
  it.each([
    ['http://[::127.0.0.1]/live/index.m3u8', '::7f00:1 is an IPv4-compatible address: 127.0.0.1 is a loopback address'],
    ['http://[::ffff:0:7f00:1]/live/index.m3u8', '::ffff:0:7f00:1 is an IPv4-translated address: 127.0.0.1 is a loopback address'],
    ['http://localhost./live/index.m3u8', 'localhost. ends in a dot'],
    ['http://foo.localhost/live/index.m3u8', 'foo.localhost is a loopback name'],
    ['http://[2002:c0a8:101::]/live/index.m3u8', '2002:c0a8:101:: is a 6to4 address: 192.168.1.1 is a private address'],
    ['http://[fec0::1]/live/index.m3u8', 'fec0::1 is a site-local (deprecated private) address'],
    ['http://[100::1]/live/index.m3u8', '100::1 is a discard-only address'],
    ['http://[64:ff9b::7f00:1]/live/index.m3u8', '64:ff9b::7f00:1 is NAT64: 127.0.0.1 is a loopback address'],
    ['http://[::ffff:127.0.0.1]/live/index.m3u8', '::ffff:7f00:1 is IPv4-mapped: 127.0.0.1 is a loopback address'],
    ['http://2130706433/live/index.m3u8', '127.0.0.1 is a loopback address'],
    ['http://0x7f.1/live/index.m3u8', '127.0.0.1 is a loopback address'],
    ['http://169.254.169.254/latest/index.m3u8', '169.254.169.254 is a link-local address'],
    ['http://100.64.0.1/live/index.m3u8', '100.64.0.1 is a carrier-grade NAT (shared address space) address'],
  ])('refuses %s with its reason', async (url, reason) => {
    const before = received.length;
    expect(await refusalOf(strict, strictCookie, url)).toContain(`only public addresses are fetched: ${reason}`);
    expect(received.length).toBe(before);
  });

  it('refuses a name that resolves to a private address, or to any private address among its answers', async () => {
    const before = received.length;
    expect(await refusalOf(seam, seamCookie, `http://internal.kura.test:${port()}/live/index.m3u8`)).toContain(
      'internal.kura.test resolves to a non-public address: 10.20.30.40 is a private address',
    );
    expect(await refusalOf(seam, seamCookie, `http://metadata.kura.test/latest/index.m3u8`)).toContain('169.254.169.254 is a link-local address');
    expect(await refusalOf(seam, seamCookie, `http://dual.kura.test:${port()}/live/index.m3u8`)).toContain('fd00::7 is a unique local (private) address');
    expect(received.length).toBe(before);
  });

  it('refuses a public URL that redirects to a private address, and takes one that stays public', async () => {
    const via = (target: string) => `http://media.kura.test:${port()}/redirect/${encodeURIComponent(target)}/index.m3u8`;
    expect(await refusalOf(seam, seamCookie, via('http://internal.kura.test:PORT/live/index.m3u8'))).toContain('10.20.30.40 is a private address');
    expect(await refusalOf(seam, seamCookie, via('http://[::ffff:7f00:2]:PORT/live/index.m3u8'))).toContain('127.0.0.2 is a loopback address');
    expect(await refusalOf(seam, seamCookie, via('http://localhost.:PORT/live/index.m3u8'))).toContain('localhost. ends in a dot');
    const accepted = await seam.app.inject({
      method: 'POST',
      url: '/api/submit',
      headers: { ...SAME_ORIGIN, cookie: seamCookie },
      payload: { videoUrl: via('http://media.kura.test:PORT/live/ok/index.m3u8') },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({ status: 'upcoming', platform: 'hls' });
    expect(received.at(-1)).toBe(`media.kura.test:${port()} /live/ok/index.m3u8`);
  });
});
