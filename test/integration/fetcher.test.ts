import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetcher, FetchError } from '../../src/adapters/sources/http-fetch.js';

// A real HTTP server on loopback: exactly what a submitted URL must not reach by default.
let server: http.Server;
let port: number;
beforeAll(async () => {
  server = http.createServer((request, response) => {
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
    expect(byName.message).toMatch(/private or loopback/);
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
    expect((await fetcher.text(`http://127.0.0.1:${port}/ok`))).toBe('hello'); // the pool still works
  });
});
