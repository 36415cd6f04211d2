// Decisions: docs/decisions/0042-outbound-client.md
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** ipaddr.js's range names in a reader's words; a range not named here is reported by its own name. */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (shared address space)',
  private: 'private',
  reserved: 'reserved (documentation, benchmarking or future use)',
  uniqueLocal: 'unique local (private)',
  deprecatedSiteLocal: 'site-local (deprecated private)',
  discard: 'discard-only',
  rfc6145: 'IPv4-translated (SIIT)',
  rfc6052: 'NAT64 local-use',
  '6to4': '6to4',
  teredo: 'Teredo',
  benchmarking: 'benchmarking',
  segmentRouting: 'segment routing',
};

/** Global unicast IPv6 (2000::/3): everything outside it is unallocated, special or embeds IPv4 (`::a.b.c.d`). */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [IPv6, number];
/** The well-known NAT64 prefix (RFC 6052): a DNS64 resolver answers with it on IPv6-only hosts, so it is judged by the IPv4 it carries. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96') as [IPv6, number];

/**
 * Why Kura refuses to connect to this IP address, or null for an address on the public internet.
 * The classification is ipaddr.js's (only its `unicast` range passes, and for IPv6 only inside
 * 2000::/3); IPv6 that carries an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) is judged
 * by that IPv4 too, so no spelling of a private address passes. A string that is not an address is refused.
 */
export function addressRefusal(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const ip = ipaddr.parse(address);
  return ip.kind() === 'ipv4' ? v4Refusal(ip as IPv4, address) : v6Refusal(ip as IPv6, address);
}

function v4Refusal(ip: IPv4, spelled: string): string | null {
  const range = ip.range();
  return range === 'unicast' ? null : `${spelled} is ${words(range)} address`;
}

function v6Refusal(ip: IPv6, spelled: string): string | null {
  const range: string = ip.range();
  const low32 = v4(ip.parts[6] ?? 0, ip.parts[7] ?? 0);
  // ::ffff:a.b.c.d is the IPv4 address itself to the socket layer, and NAT64 reaches the IPv4 it names
  if (range === 'ipv4Mapped' || ip.match(NAT64)) {
    const inner = v4Refusal(low32, low32.toString());
    return inner === null ? null : `${spelled} is ${range === 'ipv4Mapped' ? 'IPv4-mapped' : 'NAT64'}: ${inner}`;
  }
  const embedded = embeddedIPv4(ip, range, low32);
  if (embedded !== null) {
    const inner = v4Refusal(embedded.ip, embedded.ip.toString());
    return `${spelled} is ${withArticle(embedded.form)} address${inner === null ? ` (of ${embedded.ip.toString()})` : `: ${inner}`}`;
  }
  if (range !== 'unicast') return `${spelled} is ${words(range)} address`;
  return ip.match(GLOBAL_UNICAST_V6) ? null : `${spelled} is outside global unicast IPv6 (2000::/3)`;
}

/** The IPv4 address inside forms that are refused in any case, named in the reason so it says what was aimed at. */
function embeddedIPv4(ip: IPv6, range: string, low32: IPv4): { form: string; ip: IPv4 } | null {
  const [, second = 0, third = 0, , , , seventh = 0, eighth = 0] = ip.parts;
  if (range === '6to4') return { form: '6to4', ip: v4(second, third) };
  // Teredo keeps the client's address inverted in the last 32 bits
  if (range === 'teredo') return { form: 'Teredo', ip: v4(~seventh & 0xffff, ~eighth & 0xffff) };
  if (range === 'rfc6145') return { form: 'IPv4-translated', ip: low32 };
  // ::a.b.c.d (deprecated IPv4-compatible); :: and ::1 are ipaddr.js's unspecified and loopback
  if (range === 'unicast' && ip.parts.slice(0, 6).every((part) => part === 0)) return { form: 'IPv4-compatible', ip: low32 };
  return null;
}

function v4(high: number, low: number): IPv4 {
  return ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]) as IPv4;
}

/** The range in a reader's words, with its article. */
function words(range: string): string {
  return withArticle(RANGE_WORDS[range] ?? range);
}

function withArticle(phrase: string): string {
  return `${/^(IPv|[aeio]|un(?!iq))/i.test(phrase) ? 'an' : 'a'} ${phrase}`;
}

/**
 * Why Kura refuses a URL's host before any DNS lookup, or null: an IP literal is judged by
 * `judgeAddress` (`addressRefusal` but in tests); `localhost`, `*.localhost` (RFC 6761: always loopback) and any name ending in
 * a dot (the same host spelled another way, which would slip past host-name comparisons) are refused.
 * `host` is `URL.hostname`: WHATWG parsing has already turned `2130706433`, `0x7f.1`, `0177.0.0.1`
 * and `127.1` into `127.0.0.1`, and IPv6 literals keep their brackets.
 */
export function hostRefusal(host: string, judgeAddress: (address: string) => string | null = addressRefusal): string | null {
  const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(literal) !== 0) return judgeAddress(literal);
  const name = host.toLowerCase();
  if (name.endsWith('.')) return `${host} ends in a dot; name the host without it`;
  if (name === 'localhost' || name.endsWith('.localhost')) return `${host} is a loopback name`;
  return null;
}
