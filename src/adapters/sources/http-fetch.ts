import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, request, type Dispatcher } from 'undici';
import { isPublicAddress } from './address-policy.js';

/** Per-request limits for everything Kura fetches from a source. */
export const FETCH_TIMEOUT_MS = 10_000;
const MAX_PLAYLIST_BYTES = 4 * 1024 * 1024;
const MAX_REDIRECTS = 5;
/**
 * What undici's `fetch` used to send. `request` sends no defaults; sources keep seeing the same
 * client. No Accept-Encoding: `request` does not decompress, so bodies must arrive as they are.
 */
const REQUEST_HEADERS = { 'user-agent': 'node', accept: '*/*' };

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
  /** Why Kura would refuse to fetch this URL, judged by its form alone (scheme, literal address); null if it would try. */
  refusal(url: string): string | null;
}

/**
 * A fetcher that refuses loopback, private, link-local and reserved addresses — whether a URL
 * names one, its DNS resolves to one, or a redirect leads to one — unless `allowPrivate`
 * (KURA_ALLOW_PRIVATE_SOURCES, for tests and private deployments).
 */
export function createFetcher(options: { allowPrivate: boolean; isPublic?: (address: string) => boolean }): Fetcher {
  // `isPublic` is a seam for tests, where one loopback server stands for the public internet
  const isPublic = options.isPublic ?? isPublicAddress;
  const agent = new Agent({
    headersTimeout: FETCH_TIMEOUT_MS,
    bodyTimeout: FETCH_TIMEOUT_MS,
    connect: { timeout: FETCH_TIMEOUT_MS, ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup(isPublic) }) },
  });
  const checkTarget = (url: URL) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError(`${url.href}: only http(s) is fetched`, -1);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate && isIP(host) !== 0 && !isPublic(host)) {
      throw new FetchError(`${url.href}: refusing a private or loopback address`, -1);
    }
  };

  // undici's `request`, not `fetch`: the WHATWG layer (Headers, web streams, the body mixins)
  // costs several times the CPU of the request itself, paid on every segment and playlist poll
  const bytes = async (raw: string, { maxBytes = Number.POSITIVE_INFINITY, range = null }: BytesOptions = {}): Promise<Buffer> => {
    const headers = range ? { ...REQUEST_HEADERS, range: `bytes=${range.offset}-${range.offset + range.length - 1}` } : REQUEST_HEADERS;
    let url = new URL(raw);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      checkTarget(url);
      let response: Dispatcher.ResponseData;
      try {
        response = await request(url, { dispatcher: agent, headers, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      } catch (error) {
        throw asFetchError(url, error);
      }
      const location = headerValue(response.headers, 'location');
      if (response.statusCode >= 300 && response.statusCode < 400 && location !== undefined) {
        await discard(response.body);
        url = new URL(location, url);
        continue;
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        await discard(response.body);
        throw new FetchError(`${url.href}: HTTP ${response.statusCode}`, response.statusCode);
      }
      const body = await readBody(url, response.body, maxBytes);
      return range ? rangeOf(body, response.statusCode, range, url) : body;
    }
    throw new FetchError(`${raw}: more than ${MAX_REDIRECTS} redirects`, -1);
  };

  return {
    bytes,
    text: async (url) => (await bytes(url, { maxBytes: MAX_PLAYLIST_BYTES })).toString('utf8'),
    refusal(raw) {
      try {
        checkTarget(new URL(raw));
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    },
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

/** The whole body as one Buffer; refused (413) as soon as it grows past `maxBytes`. */
async function readBody(url: URL, body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of body) {
      length += (chunk as Buffer).length;
      if (length > maxBytes) throw new FetchError(`${url.href}: larger than ${maxBytes} bytes`, 413);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw asFetchError(url, error); // leaving the loop has destroyed the body
  }
  return Buffer.concat(chunks, length);
}

/** Reads away a small body so the connection is reused; a large one closes the connection instead. */
async function discard(body: Dispatcher.ResponseData['body']): Promise<void> {
  await body.dump().catch(() => undefined);
}

/** A refusal from the lookup stays a refusal; anything else is a network fault (status 0). */
function asFetchError(url: URL, error: unknown): FetchError {
  if (error instanceof FetchError) return error;
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause instanceof FetchError) return cause;
  return new FetchError(`${url.href}: ${(error as Error).message}`, 0);
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup that fails when any address of the name is not public (no DNS-rebinding choice). */
function publicOnlyLookup(isPublic: (address: string) => boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const blocked = addresses.find((a) => !isPublic(a.address));
      if (blocked !== undefined) {
        return callback(new FetchError(`${hostname} resolves to ${blocked.address}, a private or loopback address`, -1), []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
