// Decisions: docs/decisions/0016-client-address-and-trusted-proxies.md
import { isIP } from 'node:net';

// KURA_TRUST_PROXY, parsed by src/config.ts from the environment it read.

/** proxy-addr's names for ranges (Fastify passes them through): 127/8 and ::1, 169.254/16 and fe80::/10, private and fc00::/7. */
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

const EXPECTED =
  'KURA_TRUST_PROXY must be "off" or a comma-separated list of the reverse proxies\' addresses or CIDRs (e.g. "loopback" or "10.0.0.5, 172.18.0.0/16")';

/**
 * The proxies whose `X-Forwarded-For` Kura believes: empty (the default, "off") believes none, and
 * the client's address is the socket's peer. `true` and hop counts are refused: both let a client
 * that reaches Kura directly choose its own address (Fastify 5.12.1 dropped hop counts for that).
 */
export function parseTrustProxy(raw: string | undefined, problems: string[]): readonly string[] {
  if (raw === undefined || raw === 'off' || raw === 'false') return [];
  if (raw === 'true') {
    problems.push(`${EXPECTED}, not "true": that believes every hop, so any client could name its own address and dodge the per-address limits`);
    return [];
  }
  if (/^\d+$/.test(raw)) {
    problems.push(
      `${EXPECTED}, not a hop count ("${raw}"): a count cannot tell the proxy from a client that reaches Kura directly, and Fastify no longer honours one`,
    );
    return [];
  }
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const invalid = entries.filter((entry) => !isProxyEntry(entry));
  for (const entry of invalid) problems.push(`${EXPECTED} (got "${entry}", which is not an IP address, a CIDR or one of ${NAMED_RANGES.join(', ')})`);
  return invalid.length === 0 ? entries : [];
}

/** An address, an address/prefix-length within the family's bits, or a named range; never a zone id (`%eth0`). */
function isProxyEntry(entry: string): boolean {
  if (NAMED_RANGES.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || address.includes('%') || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= bits;
}
