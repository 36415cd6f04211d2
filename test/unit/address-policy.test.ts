import { describe, expect, it } from 'vitest';
import { addressRefusal, hostRefusal } from '../../src/adapters/outbound/address-policy.js';

/** How Kura judges the host of a URL as it would arrive: parsed by WHATWG URL first. */
const judge = (url: string) => hostRefusal(new URL(url).hostname);

describe('which hosts a URL someone gave Kura may reach', () => {
  // [URL as submitted, the reason Kura gives]
  it.each([
    // the spellings of issue 15
    ['http://[::127.0.0.1]/live.m3u8', '::7f00:1 is an IPv4-compatible address: 127.0.0.1 is a loopback address'],
    ['http://[::ffff:0:7f00:1]/live.m3u8', '::ffff:0:7f00:1 is an IPv4-translated address: 127.0.0.1 is a loopback address'],
    ['http://localhost./live.m3u8', 'localhost. ends in a dot'],
    ['http://[2002:7f00:1::]/', '2002:7f00:1:: is a 6to4 address: 127.0.0.1 is a loopback address'],
    ['http://[2002:c0a8:101::]/', '2002:c0a8:101:: is a 6to4 address: 192.168.1.1 is a private address'],
    ['http://[fec0::1]/', 'fec0::1 is a site-local (deprecated private) address'],
    ['http://[100::1]/', '100::1 is a discard-only address'],
    // numeric spellings of 127.0.0.1, which WHATWG URL turns into the dotted form
    ['http://2130706433/', '127.0.0.1 is a loopback address'],
    ['http://0177.0.0.1/', '127.0.0.1 is a loopback address'],
    ['http://0x7f.1/', '127.0.0.1 is a loopback address'],
    ['http://0x7f000001/', '127.0.0.1 is a loopback address'],
    ['http://127.1/', '127.0.0.1 is a loopback address'],
    ['http://127.0.0.1./', '127.0.0.1 is a loopback address'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1 is a loopback address'],
    // IPv6 forms
    ['http://[::1]/', '::1 is a loopback address'],
    ['http://[0:0:0:0:0:0:0:1]/', '::1 is a loopback address'],
    ['http://[::]/', ':: is an unspecified address'],
    ['http://[fe80::1]/', 'fe80::1 is a link-local address'],
    ['http://[fc00::1]/', 'fc00::1 is a unique local (private) address'],
    ['http://[fd12:3456::1]/', 'fd12:3456::1 is a unique local (private) address'],
    ['http://[2001:0::7f00:1]/', '2001::7f00:1 is a Teredo address (of 128.255.255.254)'],
    ['http://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1 is NAT64: 127.0.0.1 is a loopback address'],
    ['http://[64:ff9b::a00:1]/', '64:ff9b::a00:1 is NAT64: 10.0.0.1 is a private address'],
    ['http://[64:ff9b:1::808:808]/', '64:ff9b:1::808:808 is a NAT64 local-use address'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is IPv4-mapped: 127.0.0.1 is a loopback address'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1 is IPv4-mapped: 127.0.0.1 is a loopback address'],
    ['http://[::ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe is IPv4-mapped: 169.254.169.254 is a link-local address'],
    ['http://[ff02::1]/', 'ff02::1 is a multicast address'],
    ['http://[2001:db8::1]/', '2001:db8::1 is a reserved (documentation, benchmarking or future use) address'],
    ['http://[4000::1]/', '4000::1 is outside global unicast IPv6 (2000::/3)'],
    // IPv4 special ranges
    ['http://0.0.0.0/', '0.0.0.0 is an unspecified address'],
    ['http://0/', '0.0.0.0 is an unspecified address'],
    ['http://10.1.2.3/', '10.1.2.3 is a private address'],
    ['http://172.16.0.1/', '172.16.0.1 is a private address'],
    ['http://192.168.1.1/', '192.168.1.1 is a private address'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
    ['http://100.64.0.1/', '100.64.0.1 is a carrier-grade NAT (shared address space) address'],
    ['http://198.18.0.1/', '198.18.0.1 is a reserved (documentation, benchmarking or future use) address'],
    ['http://192.0.0.1/', '192.0.0.1 is a reserved (documentation, benchmarking or future use) address'],
    ['http://224.0.0.1/', '224.0.0.1 is a multicast address'],
    ['http://240.0.0.1/', '240.0.0.1 is a reserved (documentation, benchmarking or future use) address'],
    ['http://255.255.255.255/', '255.255.255.255 is a broadcast address'],
    // names that are loopback by definition, or another spelling of a name
    ['http://localhost/', 'localhost is a loopback name'],
    ['http://LOCALHOST/', 'localhost is a loopback name'],
    ['http://foo.localhost/', 'foo.localhost is a loopback name'],
    ['http://localhost%2e/', 'localhost. ends in a dot'],
    ['http://example.com./', 'example.com. ends in a dot'],
  ])('refuses %s: %s', (url, reason) => {
    expect(judge(url)).toContain(reason);
  });

  it.each([
    'https://8.8.8.8/live.m3u8',
    'https://1.1.1.1/',
    'http://172.32.0.1/',
    'http://192.169.0.1/',
    'http://[2606:4700::1111]/',
    'http://[2a00:1450:4001:80b::200e]/',
    'http://[::ffff:8.8.8.8]/',
    'http://[64:ff9b::808:808]/', // what a DNS64 resolver answers for 8.8.8.8 on an IPv6-only host
    'https://www.youtube.com/watch?v=AAAAAAAAAAA',
    'https://cdn.example.com/live/index.m3u8',
    'https://localhost.example.com/',
  ])('allows %s', (url) => {
    expect(judge(url)).toBeNull();
  });

  it('cannot be handed a zone id: WHATWG URL refuses it, and the address judge still sees link-local', () => {
    expect(() => new URL('http://[fe80::1%25eth0]/')).toThrow(/Invalid URL/);
    expect(addressRefusal('fe80::1%eth0')).toBe('fe80::1%eth0 is a link-local address');
  });

  it('judges resolved addresses (what DNS answers) the same way, and refuses what is not an address', () => {
    expect(addressRefusal('127.0.0.53')).toBe('127.0.0.53 is a loopback address');
    expect(addressRefusal('::ffff:10.0.0.1')).toBe('::ffff:10.0.0.1 is IPv4-mapped: 10.0.0.1 is a private address');
    expect(addressRefusal('93.184.215.14')).toBeNull();
    expect(addressRefusal('example.com')).toBe('example.com is not an IP address');
  });
});
