// Decisions: docs/decisions/0042-outbound-client.md
import { asFetchError, createOutboundClient, FetchError, type OutboundOptions } from '../outbound/outbound-client.js';
import type { IncomingHttpHeaders } from 'node:http';
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
  /** Bound the wait for the headers and for each read of the body, not the whole body (see OutboundRequest). */
  perRead?: boolean;
}

/** Takes a body's bytes as they arrive; the next chunk waits until the promise settles. */
export type ChunkSink = (chunk: Buffer) => Promise<void>;

/** How Kura reaches sources: with time-outs, bounded redirects, and no SSRF. */
export interface Fetcher {
  bytes(url: string, options?: BytesOptions): Promise<Buffer>;
  /**
   * Hands the body (or its `range`) to `sink` chunk by chunk as it arrives, never holding it
   * whole; resolves with its length once it is complete. Throws a FetchError, after `sink` may
   * have taken part of the body, when the body fails, is cut short, or grows past `maxBytes` (413);
   * what `sink` throws, as it is.
   */
  stream(url: string, sink: ChunkSink, options?: BytesOptions): Promise<number>;
  text(url: string, options?: Pick<BytesOptions, 'headers'>): Promise<string>;
  /**
   * A resource whose answer's headers matter as well as its body (a YouTube fragment's
   * `X-Head-Seqnum`); `HEAD` asks for the headers alone. Throws a FetchError as `bytes` does.
   */
  withHeaders(url: string, options?: BytesOptions & { method?: 'GET' | 'HEAD' }): Promise<{ body: Buffer; headers: IncomingHttpHeaders }>;
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
  const stream = async (
    raw: string,
    sink: ChunkSink,
    { maxBytes = Number.POSITIVE_INFINITY, range = null, headers: extra, perRead }: BytesOptions = {},
    method: 'GET' | 'HEAD' = 'GET',
    answered: (headers: IncomingHttpHeaders) => void = () => undefined,
  ) => {
    const base = extra ? { ...REQUEST_HEADERS, ...extra } : REQUEST_HEADERS;
    const headers = range ? { ...base, range: `bytes=${range.offset}-${range.offset + range.length - 1}` } : base;
    const response = await client.send(raw, { headers, method, perRead });
    if (response.statusCode < 200 || response.statusCode > 299) {
      // a small body is read away so the connection is reused; a large one closes the connection instead
      await response.body.dump().catch(() => undefined);
      throw new FetchError(`${response.url.href}: HTTP ${response.statusCode}`, response.statusCode);
    }
    answered(response.headers);
    // a server that ignores Range sends the whole resource (200): the range is cut from it here
    const cut = range !== null && response.statusCode !== 206 ? { skip: range.offset, take: range.length } : { skip: 0, take: Number.POSITIVE_INFINITY };
    const length = await readBody(response.url, response.body, maxBytes, cut, sink);
    if (range !== null && length !== range.length) {
      throw new FetchError(`${response.url.href}: expected ${range.length} bytes at ${range.offset}, got ${length}`, 0);
    }
    return length;
  };
  const bytes = async (url: string, options?: BytesOptions) => {
    const chunks: Buffer[] = [];
    const length = await stream(url, async (chunk) => void chunks.push(chunk), options);
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
  };

  return {
    stream,
    bytes,
    text: async (url, options) => (await bytes(url, { maxBytes: MAX_PLAYLIST_BYTES, headers: options?.headers })).toString('utf8'),
    refusal: client.refusal,
    async withHeaders(url, { method = 'GET', ...options } = {}) {
      const chunks: Buffer[] = [];
      let headers: IncomingHttpHeaders = {};
      const length = await stream(
        url,
        async (chunk) => void chunks.push(chunk),
        options,
        method,
        (answered) => (headers = answered),
      );
      return { body: Buffer.concat(chunks, length), headers };
    },
  };
}

/**
 * Hands `sink` the body's bytes from `skip` on, at most `take` of them (the rest is not read: the
 * connection closes instead), and resolves with how many it handed. Refused (413) as soon as the
 * body grows past `maxBytes`.
 */
async function readBody(
  url: URL,
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
  { skip, take }: { skip: number; take: number },
  sink: ChunkSink,
): Promise<number> {
  let seen = 0;
  let handed = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const from = Math.max(0, skip - seen);
      seen += chunk.length;
      if (seen > maxBytes) throw new FetchError(`${url.href}: larger than ${maxBytes} bytes`, 413);
      if (from >= chunk.length) continue;
      const part = from === 0 && handed + chunk.length <= take ? chunk : chunk.subarray(from, from + take - handed);
      handed += part.length;
      await sink(part).catch((error: unknown) => {
        throw new SinkFailure(error);
      });
      if (handed >= take) break; // leaving the loop destroys the body
    }
  } catch (error) {
    // leaving the loop has destroyed the body; what the sink could not take is not a fetch fault
    if (error instanceof SinkFailure) throw error.cause;
    throw asFetchError(url, error);
  }
  return handed;
}

class SinkFailure {
  constructor(readonly cause: unknown) {}
}

/**
 * `fetcher` sending `headers()` besides each request's own (a site's Origin and Referer, which its
 * playlist and segments answer only with: decision 0133); as it is while `headers()` is null.
 */
export function sendingHeaders(fetcher: Fetcher, headers: () => Readonly<Record<string, string>> | null): Fetcher {
  const merged = <O extends { headers?: Record<string, string> }>(options: O | undefined): O | undefined => {
    const extra = headers();
    return extra === null ? options : ({ ...options, headers: { ...extra, ...options?.headers } } as O);
  };
  return {
    bytes: (url, options) => fetcher.bytes(url, merged(options)),
    stream: (url, sink, options) => fetcher.stream(url, sink, merged(options)),
    text: (url, options) => fetcher.text(url, merged(options)),
    withHeaders: (url, options) => fetcher.withHeaders(url, merged(options)),
    refusal: (url) => fetcher.refusal(url),
  };
}
