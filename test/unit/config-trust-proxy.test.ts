import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/config.js';

// KURA_TRUST_PROXY: whose X-Forwarded-For is believed (the client address behind rate limits and logs)
describe('the reverse proxies Kura trusts', () => {
  it("reads KURA_TRUST_PROXY: off by default, or the proxies' addresses, CIDRs and named ranges", () => {
    for (const off of [undefined, '', 'off', 'false']) expect(parseConfig({ KURA_TRUST_PROXY: off }).trustProxy).toEqual([]);
    expect(parseConfig({ KURA_TRUST_PROXY: ' 10.0.0.5, 172.18.0.0/16,loopback, 2001:db8::/32, ::1 ' }).trustProxy).toEqual([
      '10.0.0.5',
      '172.18.0.0/16',
      'loopback',
      '2001:db8::/32',
      '::1',
    ]);
  });

  it('refuses KURA_TRUST_PROXY=true, hop counts and what is not an address, each with the reason', () => {
    const problemsOf = (value: string) => {
      try {
        parseConfig({ KURA_TRUST_PROXY: value });
      } catch (error) {
        return (error as ConfigError).problems;
      }
      throw new Error(`KURA_TRUST_PROXY=${value} was accepted`);
    };
    expect(problemsOf('true')).toEqual([expect.stringMatching(/^KURA_TRUST_PROXY must be .*not "true": .*any client could name its own address/)]);
    expect(problemsOf('1')).toEqual([
      expect.stringMatching(/^KURA_TRUST_PROXY must be .*not a hop count \("1"\): a count cannot tell the proxy from a client/),
    ]);
    expect(problemsOf('10.0.0.5, nginx, 10.0.0.0/33, 300.1.1.1, fe80::1%eth0, ::1/129, 10.0.0.0/8/8')).toEqual(
      ['nginx', '10.0.0.0/33', '300.1.1.1', 'fe80::1%eth0', '::1/129', '10.0.0.0/8/8'].map(
        (entry) =>
          `KURA_TRUST_PROXY must be "off" or a comma-separated list of the reverse proxies' addresses or CIDRs (e.g. "loopback" or "10.0.0.5, 172.18.0.0/16") (got "${entry}", which is not an IP address, a CIDR or one of loopback, linklocal, uniquelocal)`,
      ),
    );
  });

  it("accepts only what Fastify's trustProxy (proxy-addr) takes, so the server starts with it", async () => {
    const { default: Fastify } = await import('fastify');
    const { trustProxy } = parseConfig({ KURA_TRUST_PROXY: '10.0.0.5, 172.18.0.0/16, loopback, linklocal, uniquelocal, 2001:db8::/32, ::ffff:10.1.2.3' });
    const app = Fastify({ trustProxy: [...trustProxy] });
    app.get('/', async (request) => request.ip);
    const behind = (from: string) => app.inject({ url: '/', remoteAddress: from, headers: { 'x-forwarded-for': '203.0.113.1, 198.51.100.2' } });
    expect((await behind('172.18.3.4')).body).toBe('198.51.100.2');
    expect((await behind('10.1.2.3')).body).toBe('198.51.100.2');
    expect((await behind('192.0.2.1')).body).toBe('192.0.2.1');
    await app.close();
  });
});
