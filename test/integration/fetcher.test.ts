import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { addressRefusal } from '../../src/adapters/outbound/address-policy.js';
import { createOutboundClient } from '../../src/adapters/outbound/outbound-client.js';
import { createFetcher, FetchError } from '../../src/adapters/sources/http-fetch.js';

// A real HTTP server on loopback: exactly what a submitted URL must not reach by default.
let server: http.Server;
let port: number;
/** Every request the server received, as `METHOD host path`. */
const received: string[] = [];
beforeAll(async () => {
  server = http.createServer((request, response) => {
    received.push(`${request.method} ${request.headers.host} ${request.url}`);
    const redirect = /^\/redirect\/(.+)$/.exec(request.url ?? '');
    if (redirect) return void response.writeHead(302, { location: decodeURIComponent(redirect[1] as string).replace('PORT', String(port)) }).end();
    if (request.url === '/loop') return void response.writeHead(302, { location: '/loop' }).end();
    if (request.url === '/to-ok') return void response.writeHead(301, { location: '/ok' }).end();
    if (request.url === '/digits' || request.url === '/digits-whole') {
      // /digits honours "bytes=a-b" like a CDN; /digits-whole ignores it like a plain server
      const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
      if (range === null || request.url === '/digits-whole') return void response.writeHead(200).end('0123456789');
      return void response.writeHead(206).end('0123456789'.slice(Number(range[1]), Number(range[2]) + 1));
    }
    if (request.url === '/big') return void response.writeHead(200).end(Buffer.alloc(5 * 1024 * 1024, 35));
    if (request.url === '/reset') return void request.socket.destroy();
    if (request.url === '/trickle') {
      response.writeHead(200);
      const drip = setInterval(() => response.write('.'), 100);
      return void response.on('close', () => clearInterval(drip));
    }
    response.writeHead(request.url === '/ok' ? 200 : 404).end('hello');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FetchError);
  return error as FetchError;
};

describe('fetching sources', () => {
  it('refuses loopback by literal address and by DNS name, before connecting', async () => {
    const fetcher = createFetcher({ allowPrivate: false });
    expect((await refusal(fetcher.bytes(`http://127.0.0.1:${port}/ok`))).refused).toBe(true);
    expect((await refusal(fetcher.bytes(`http://[::1]:${port}/ok`))).refused).toBe(true);
    const byName = await refusal(fetcher.bytes(`http://localhost:${port}/ok`));
    expect(byName.refused).toBe(true);
    expect(byName.message).toBe(`http://localhost:${port}/ok: refused, only public addresses are fetched: localhost is a loopback name`);
    expect((await refusal(fetcher.bytes('file:///etc/passwd'))).refused).toBe(true);
  });

  it('fetches and follows redirects when private sources are allowed, within a bound', async () => {
    const fetcher = createFetcher({ allowPrivate: true });
    expect((await fetcher.bytes(`http://127.0.0.1:${port}/to-ok`)).toString()).toBe('hello');
    expect((await refusal(fetcher.bytes(`http://127.0.0.1:${port}/loop`))).message).toMatch(/more than 5 redirects/);
    const missing = await refusal(fetcher.bytes(`http://127.0.0.1:${port}/missing`));
    expect(missing.status).toBe(404);
    expect(missing.refused).toBe(false);
  });

  it('cuts a body that keeps trickling in past the whole request’s limit, and leaves a prompt one whole', async () => {
    const fetcher = createFetcher({ allowPrivate: true, timeoutMs: 600 });
    expect((await fetcher.bytes(`http://127.0.0.1:${port}/ok`)).toString()).toBe('hello');
    const trickle = await refusal(fetcher.bytes(`http://127.0.0.1:${port}/trickle`)); // a byte every 100 ms: never idle long enough for bodyTimeout
    expect(trickle.status).toBe(0);
    expect(trickle.message).toMatch(/no complete answer within 0.6 s/);
  });

  it('fetches byte ranges, whether the server answers 206 or the whole resource', async () => {
    const fetcher = createFetcher({ allowPrivate: true });
    expect((await fetcher.bytes(`http://127.0.0.1:${port}/digits`, { range: { offset: 3, length: 4 } })).toString()).toBe('3456');
    expect((await fetcher.bytes(`http://127.0.0.1:${port}/digits-whole`, { range: { offset: 3, length: 4 } })).toString()).toBe('3456');
    expect((await fetcher.bytes(`http://127.0.0.1:${port}/digits`, { range: { offset: 8, length: 2 } })).toString()).toBe('89');
    const short = await refusal(fetcher.bytes(`http://127.0.0.1:${port}/digits`, { range: { offset: 8, length: 5 } }));
    expect(short.message).toMatch(/expected 5 bytes at 8, got 2/);
    expect((await refusal(fetcher.bytes(`http://127.0.0.1:${port}/digits`, { maxBytes: 4 }))).status).toBe(413);
  });

  it('bounds playlist bodies and reports network faults as status 0', async () => {
    const fetcher = createFetcher({ allowPrivate: true });
    expect((await fetcher.bytes(`http://127.0.0.1:${port}/big`)).length).toBe(5 * 1024 * 1024);
    const big = await refusal(fetcher.text(`http://127.0.0.1:${port}/big`));
    expect(big.status).toBe(413);
    expect(big.message).toMatch(/larger than/);
    const reset = await refusal(fetcher.bytes(`http://127.0.0.1:${port}/reset`));
    expect(reset.status).toBe(0);
    expect(reset.message).toContain(`http://127.0.0.1:${port}/reset: `);
    expect(await fetcher.text(`http://127.0.0.1:${port}/ok`)).toBe('hello'); // the pool still works
  });
});

/** A DNS DOUBLE: the names of these tests and what they resolve to (each call noted). */
function fakeDns(answers: Record<string, string[] | (() => string[])>) {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    const answer = answers[hostname];
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return (typeof answer === 'function' ? answer() : answer).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { asked, resolve };
}
/** The test server's 127.0.0.1 stands for the public internet; every other address is judged for real. */
const loopbackIsPublic = (address: string) => (address === '127.0.0.1' ? null : addressRefusal(address));

describe('every address a URL leads to is judged', () => {
  it('refuses a name that resolves to a private address, judging every address of the answer, before any request', async () => {
    const dns = fakeDns({ 'internal.test': ['10.0.0.7'], 'mixed.test': ['127.0.0.1', '10.0.0.8'], 'loopback.test': ['127.0.0.1'] });
    const before = received.length;
    const real = createFetcher({ allowPrivate: false, resolve: dns.resolve });
    const loopback = await refusal(real.bytes(`http://loopback.test:${port}/ok`));
    expect(loopback.refused).toBe(true);
    expect(loopback.message).toBe('loopback.test resolves to a non-public address: 127.0.0.1 is a loopback address');
    const seam = createFetcher({ allowPrivate: false, addressRefusal: loopbackIsPublic, resolve: dns.resolve });
    expect((await refusal(seam.bytes(`http://internal.test:${port}/ok`))).message).toBe(
      'internal.test resolves to a non-public address: 10.0.0.7 is a private address',
    );
    expect((await refusal(seam.bytes(`http://mixed.test:${port}/ok`))).message).toBe(
      'mixed.test resolves to a non-public address: 10.0.0.8 is a private address',
    );
    expect(received.length).toBe(before);
    expect((await seam.bytes(`http://loopback.test:${port}/ok`)).toString()).toBe('hello'); // a public answer is fetched
  });

  it('connects to the address it checked: a name that rebinds after the check cannot swap it', async () => {
    let calls = 0;
    // the first answer passes the policy; any later one names 127.0.0.2, which nothing listens on and the policy refuses
    const dns = fakeDns({ 'rebind.test': () => (++calls === 1 ? ['127.0.0.1'] : ['127.0.0.2']) });
    const fetcher = createFetcher({ allowPrivate: false, addressRefusal: loopbackIsPublic, resolve: dns.resolve });
    expect((await fetcher.bytes(`http://rebind.test:${port}/ok`)).toString()).toBe('hello');
    expect(dns.asked).toEqual(['rebind.test']); // one lookup: the check and the connection shared it
    expect(received.at(-1)).toBe(`GET rebind.test:${port} /ok`);
  });

  it('judges every redirect hop: to a literal, an IPv6 spelling, a dotted name or a name resolving to a private address', async () => {
    const dns = fakeDns({ 'media.test': ['127.0.0.1'], 'internal.test': ['192.168.4.4'] });
    const fetcher = createFetcher({ allowPrivate: false, addressRefusal: loopbackIsPublic, resolve: dns.resolve });
    const hop = async (target: string) => (await refusal(fetcher.bytes(`http://media.test:${port}/redirect/${encodeURIComponent(target)}`))).message;
    expect(await hop('http://127.0.0.2:PORT/ok')).toBe(
      `http://127.0.0.2:${port}/ok: refused, only public addresses are fetched: 127.0.0.2 is a loopback address`,
    );
    expect(await hop('http://[::ffff:0:7f00:1]:PORT/ok')).toMatch(/::ffff:0:7f00:1 is an IPv4-translated address: 127.0.0.1 is a loopback address$/);
    expect(await hop('http://[::127.0.0.1]:PORT/ok')).toMatch(/::7f00:1 is an IPv4-compatible address: 127.0.0.1 is a loopback address$/);
    expect(await hop('http://localhost.:PORT/ok')).toMatch(/localhost\. ends in a dot/);
    expect(await hop('http://internal.test:PORT/ok')).toBe('internal.test resolves to a non-public address: 192.168.4.4 is a private address');
    expect((await fetcher.bytes(`http://media.test:${port}/redirect/${encodeURIComponent('http://media.test:PORT/ok')}`)).toString()).toBe('hello');
  });
});

describe('the outbound client (what webhooks will post through)', () => {
  it('refuses to POST to a non-public address and returns a redirect instead of following it', async () => {
    const client = createOutboundClient({
      allowPrivate: false,
      addressRefusal: loopbackIsPublic,
      resolve: fakeDns({ 'hooks.test': ['127.0.0.1'], 'lan.test': ['172.20.0.5'] }).resolve,
    });
    const before = received.length;
    const refused = await refusal(client.send(`http://lan.test:${port}/ok`, { method: 'POST', body: '{}' }));
    expect(refused.message).toBe('lan.test resolves to a non-public address: 172.20.0.5 is a private address');
    expect(client.refusal('http://[fd00::1]/hook')).toBe(
      'http://[fd00::1]/hook: refused, only public addresses are fetched: fd00::1 is a unique local (private) address',
    );
    expect(received.length).toBe(before);
    const redirected = await client.send(`http://hooks.test:${port}/redirect/${encodeURIComponent('http://127.0.0.2:PORT/ok')}`, {
      method: 'POST',
      body: '{}',
    });
    await redirected.body.dump();
    expect(redirected.statusCode).toBe(302); // not followed: the 127.0.0.2 it names was never asked
    expect(received.slice(before)).toEqual([`POST hooks.test:${port} /redirect/${encodeURIComponent('http://127.0.0.2:PORT/ok')}`]);
  });
});
