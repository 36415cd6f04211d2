import { asFetchError, createOutboundClient, FetchError, type OutboundOptions } from '../outbound/outbound-client.js';
import type { Dispatcher } from 'undici';

export { FetchError };

const MAX_PLAYLIST_BYTES = 4 * 1024 * 1024;
/**
 * What undici's `fetch` used to send. `request` sends no defaults; sources keep seeing the same
 * client. No Accept-Encoding: `request` does not decompress, so bodies must arrive as they are.
 */
const REQUEST_HEADERS = { 'user-agent': 'node', accept: '*/*' };

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
  /** Sent besides Kura's own (an API key a service asks for). */
  headers?: Record<string, string>;
}

/** How Kura reaches sources: with time-outs, bounded redirects, and no SSRF. */
export interface Fetcher {
  bytes(url: string, options?: BytesOptions): Promise<Buffer>;
  text(url: string, options?: Pick<BytesOptions, 'headers'>): Promise<string>;
  /** Why Kura would refuse to fetch this URL, judged by its form alone (scheme, literal address, host name); null if it would try. */
  refusal(url: string): string | null;
}

/**
 * GETs of sources (playlists, segments, keys, thumbnails, the URLs yt-dlp hands over) through the
 * outbound client: non-public addresses are refused whether a URL names one, its DNS resolves to
 * one, or a redirect leads to one — unless `allowPrivate` (KURA_ALLOW_PRIVATE_SOURCES).
 */
export function createFetcher(options: OutboundOptions): Fetcher {
  const client = createOutboundClient(options);
  // undici's `request`, not `fetch`: the WHATWG layer (Headers, web streams, the body mixins)
  // costs several times the CPU of the request itself, paid on every segment and playlist poll
  const bytes = async (raw: string, { maxBytes = Number.POSITIVE_INFINITY, range = null, headers: extra }: BytesOptions = {}): Promise<Buffer> => {
    const base = extra ? { ...REQUEST_HEADERS, ...extra } : REQUEST_HEADERS;
    const headers = range ? { ...base, range: `bytes=${range.offset}-${range.offset + range.length - 1}` } : base;
    const response = await client.send(raw, { headers });
    if (response.statusCode < 200 || response.statusCode > 299) {
      // a small body is read away so the connection is reused; a large one closes the connection instead
      await response.body.dump().catch(() => undefined);
      throw new FetchError(`${response.url.href}: HTTP ${response.statusCode}`, response.statusCode);
    }
    const body = await readBody(response.url, response.body, maxBytes);
    return range ? rangeOf(body, response.statusCode, range, response.url) : body;
  };

  return {
    bytes,
    text: async (url, options) => (await bytes(url, { maxBytes: MAX_PLAYLIST_BYTES, headers: options?.headers })).toString('utf8'),
    refusal: client.refusal,
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
