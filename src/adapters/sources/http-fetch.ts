import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, fetch } from 'undici';
import { isPublicAddress } from './address-policy.js';

/** Per-request limits for everything Kura fetches from a source. */
export const FETCH_TIMEOUT_MS = 10_000;
const MAX_PLAYLIST_BYTES = 4 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export class FetchError extends Error {
  constructor(
    message: string,
    /** HTTP status, 0 for a network fault or time-out, -1 when Kura refused to fetch. */
    readonly status: number,
  ) {
    super(message);
    this.name = 'FetchError';
  }
  /** Kura will not fetch this URL (private address, scheme): retrying cannot help. */
  get refused(): boolean {
    return this.status === -1;
  }
}

/** Part of a resource (HLS `#EXT-X-BYTERANGE`): `length` bytes from `offset`. */
export interface ByteRange {
  offset: number;
  length: number;
}

export interface BytesOptions {
  /** Refuse a body larger than this. */
  maxBytes?: number;
  /** Fetch only these bytes (a `Range` request). */
  range?: ByteRange | null;
}

/** How Kura reaches sources: with time-outs, bounded redirects, and no SSRF. */
export interface Fetcher {
  bytes(url: string, options?: BytesOptions): Promise<Buffer>;
  text(url: string): Promise<string>;
}

/**
 * A fetcher that refuses loopback, private, link-local and reserved addresses — whether a URL
 * names one, its DNS resolves to one, or a redirect leads to one — unless `allowPrivate`
 * (KURA_ALLOW_PRIVATE_SOURCES, for tests and private deployments).
 */
export function createFetcher(options: { allowPrivate: boolean }): Fetcher {
  const agent = new Agent({
    headersTimeout: FETCH_TIMEOUT_MS,
    bodyTimeout: FETCH_TIMEOUT_MS,
    connect: { timeout: FETCH_TIMEOUT_MS, ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }) },
  });
  const checkTarget = (url: URL) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError(`${url.href}: only http(s) is fetched`, -1);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) {
      throw new FetchError(`${url.href}: refusing a private or loopback address`, -1);
    }
  };

  const bytes = async (raw: string, { maxBytes = Number.POSITIVE_INFINITY, range = null }: BytesOptions = {}): Promise<Buffer> => {
    const headers = range ? { range: `bytes=${range.offset}-${range.offset + range.length - 1}` } : undefined;
    let url = new URL(raw);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      checkTarget(url);
      let response;
      try {
        response = await fetch(url, { dispatcher: agent, redirect: 'manual', headers, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      } catch (error) {
        const cause = (error as Error & { cause?: Error }).cause;
        if (cause instanceof FetchError) throw cause;
        throw new FetchError(`${url.href}: ${cause?.message ?? (error as Error).message}`, 0);
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel().catch(() => undefined);
        url = new URL(location, url);
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new FetchError(`${url.href}: HTTP ${response.status}`, response.status);
      }
      try {
        const body = Buffer.from(await response.arrayBuffer());
        if (body.length > maxBytes) throw new FetchError(`${url.href}: larger than ${maxBytes} bytes`, 413);
        return range ? rangeOf(body, response.status, range, url) : body;
      } catch (error) {
        if (error instanceof FetchError) throw error;
        throw new FetchError(`${url.href}: ${(error as Error).message}`, 0);
      }
    }
    throw new FetchError(`${raw}: more than ${MAX_REDIRECTS} redirects`, -1);
  };

  return {
    bytes,
    text: async (url) => (await bytes(url, { maxBytes: MAX_PLAYLIST_BYTES })).toString('utf8'),
  };
}

/** The requested bytes, whether the server honoured the Range (206) or sent the whole resource (200). */
function rangeOf(body: Buffer, status: number, range: ByteRange, url: URL): Buffer {
  const part = status === 206 ? body : body.subarray(range.offset, range.offset + range.length);
  if (part.length !== range.length) {
    throw new FetchError(`${url.href}: expected ${range.length} bytes at ${range.offset}, got ${part.length}`, 0);
  }
  return part;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup that fails when any address of the name is not public (no DNS-rebinding choice). */
function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked !== undefined) {
      return callback(new FetchError(`${hostname} resolves to ${blocked.address}, a private or loopback address`, -1), []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
}
