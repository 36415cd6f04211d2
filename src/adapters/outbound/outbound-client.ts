// Decisions: docs/decisions/0042-outbound-client.md, docs/decisions/0083-what-a-recording-pays-for.md
import type { LookupAddress, LookupOptions } from 'node:dns';
import dns from 'node:dns/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import type { AddressRefusal } from '../../core/sources/ports.js';
import { NOT_PUBLIC_ADDRESS, redactUrl } from '../../core/sources/public-url.js';
import { addressRefusal, hostRefusal } from './address-policy.js';

/** Per-request limit (connect, headers, body) for everything Kura sends out. */
export const OUTBOUND_TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 5;

export class FetchError extends Error {
  constructor(
    message: string,
    /** HTTP status, 0 for a network fault or time-out, -1 when Kura refused to fetch. */
    readonly status: number,
    /** What the public may read instead (a refused address's words without the address); unset: the message with its URLs redacted. */
    readonly publicMessage?: string,
  ) {
    super(message);
    this.name = 'FetchError';
  }
  /** Kura will not fetch this URL (private address, scheme): retrying cannot help. */
  get refused(): boolean {
    return this.status === -1;
  }
}

export interface OutboundOptions {
  /** KURA_ALLOW_PRIVATE_SOURCES: reach any address (tests, private deployments). */
  allowPrivate: boolean;
  /** A seam for tests, where one loopback server stands for the public internet: why an address is refused, null to allow it. */
  addressRefusal?: (address: string) => string | null;
  /** A seam for tests: every address of a name (default: the system resolver, `dns.lookup` with `all`). */
  resolve?: (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;
  /** A seam for tests: the per-request limit (default OUTBOUND_TIMEOUT_MS). */
  timeoutMs?: number;
}

export interface OutboundRequest {
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Redirects followed, each hop judged as the first URL was (default 5). Only GET and HEAD follow; other methods get the 3xx back. */
  maxRedirects?: number;
  /**
   * Bound only the wait for the answer's headers and for each read of its body, not the whole
   * answer: a large body on a slow link that keeps arriving is not cut off (YouTube's fragments,
   * as ytarchive bounds only `ResponseHeaderTimeout`).
   */
  perRead?: boolean;
}

export interface OutboundResponse {
  /** The URL that answered, after redirects. */
  url: URL;
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** Must be read or dumped by the caller. */
  body: Dispatcher.ResponseData['body'];
}

/** How Kura reaches a URL a user or operator gave it. */
export interface OutboundClient {
  /** Sends one request; throws a FetchError (`refused`) for a URL, name, DNS answer or redirect hop that is not public, status 0 for a network fault. */
  send(url: string, request?: OutboundRequest): Promise<OutboundResponse>;
  /** Why `send` would refuse this URL by its form alone (scheme, literal address, host name); null if it would try. */
  refusal(url: string): string | null;
}

/**
 * THE way out of Kura to a URL someone gave it (sources, thumbnails, keys, and webhooks to come):
 * only public (ipaddr.js `unicast`) addresses are reached unless `allowPrivate`. The URL's host is
 * judged before DNS, every address its name resolves to is judged inside the connection's own DNS
 * lookup (so the connection goes to the address that was checked: DNS rebinding cannot swap it),
 * and every redirect hop is judged again.
 */
export function createOutboundClient(options: OutboundOptions): OutboundClient {
  const refuse = options.addressRefusal ?? addressRefusal;
  const timeoutMs = options.timeoutMs ?? OUTBOUND_TIMEOUT_MS;
  const agent = new Agent({
    // undici 8 would speak HTTP/2 to a TLS server that offers it; Kura's outbound requests are
    // HTTP/1.1 as they were with undici 7 (what its tests, limits and measurements are of)
    allowH2: false,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: timeoutMs, ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup(refuse, options.resolve ?? systemResolve) }) },
  });
  const checkTarget = (url: URL) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError(`${url.href}: only http(s) is fetched`, -1);
    if (options.allowPrivate) return;
    const reason = hostRefusal(url.hostname, refuse);
    if (reason !== null)
      throw new FetchError(`${url.href}: refused, only public addresses are fetched: ${reason}`, -1, `${redactUrl(url.href)}: ${NOT_PUBLIC_ADDRESS}`);
  };

  const send = async (
    raw: string,
    { method = 'GET', headers, body, maxRedirects = MAX_REDIRECTS, perRead = false }: OutboundRequest = {},
  ): Promise<OutboundResponse> => {
    let url = new URL(raw);
    const follows = method === 'GET' || method === 'HEAD';
    for (let hop = 0; hop <= maxRedirects; hop++) {
      checkTarget(url);
      let response: Dispatcher.ResponseData;
      // per read: the agent's headersTimeout and bodyTimeout (the longest wait between two reads) bound it alone
      const deadline = perRead ? NO_DEADLINE : requestDeadline(timeoutMs);
      try {
        response = await request(url, { method, headers, body, dispatcher: agent, signal: deadline.signal });
      } catch (error) {
        deadline.clear();
        throw asFetchError(url, error);
      }
      response.body.once('close', deadline.clear); // read, dumped or failed: the deadline is over
      const location = headerValue(response.headers, 'location');
      if (!follows || response.statusCode < 300 || response.statusCode > 399 || location === undefined) {
        return { url, statusCode: response.statusCode, headers: response.headers, body: response.body };
      }
      await response.body.dump().catch(() => undefined); // a small body keeps the connection for reuse
      url = new URL(location, url);
    }
    throw new FetchError(`${raw}: more than ${maxRedirects} redirects`, -1);
  };

  return {
    send,
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

const NO_DEADLINE = { signal: undefined, clear: () => undefined };

/**
 * The whole request's limit (connect, headers and body together), cleared once the body is over.
 * Not `AbortSignal.timeout`: it cannot be cleared, so each request's signal fired ten seconds
 * later, an exception and an abort event each, and a recording makes two requests a second.
 */
function requestDeadline(ms: number): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no complete answer within ${ms / 1000} s`)), ms);
  timer.unref(); // a command that is done does not wait for it
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** A refusal from the lookup stays a refusal; anything else is a network fault (status 0). */
export function asFetchError(url: URL, error: unknown): FetchError {
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

/**
 * dns.lookup for the connection itself: it fails when any address of the name is not public
 * (no choosing among a rebinding answer), and the socket connects to an address it returned.
 */
function publicOnlyLookup(refuse: (address: string) => string | null, resolve: NonNullable<OutboundOptions['resolve']>) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, options).then(
      (addresses) => {
        const refused = pointsNonPublic(hostname, addresses, refuse);
        if (refused !== null) return callback(new FetchError(refused, -1, `${hostname}: ${NOT_PUBLIC_ADDRESS}`), []);
        const first = addresses[0];
        if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
        if (options.all) return callback(null, addresses);
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

function systemResolve(hostname: string, options: LookupOptions): Promise<LookupAddress[]> {
  return dns.lookup(hostname, { ...options, all: true });
}

/**
 * The check of a URL's DNS answer when a follow or webhook is created: refused when any address
 * its host name resolves to is not public (as every connection is refused then). A name that does
 * not resolve now passes: DNS may be down for a while, and every connection is judged again.
 * An IP literal is left to `hostRefusal`; with `allowPrivate`, nothing is refused.
 */
export function createAddressCheck(options: OutboundOptions): (url: string) => Promise<AddressRefusal | null> {
  const refuse = options.addressRefusal ?? addressRefusal;
  const resolve = options.resolve ?? systemResolve;
  return async (raw) => {
    if (options.allowPrivate) return null;
    const host = new URL(raw).hostname;
    if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) return null;
    const detail = pointsNonPublic(host, await resolve(host, { all: true }).catch(() => []), refuse);
    return detail === null ? null : { publicReason: `${host} resolves to a non-public address (${NOT_PUBLIC_ADDRESS})`, detail };
  };
}

/** Why a name is refused for the first of its addresses that is not public (naming it: the admin's words), or null. */
function pointsNonPublic(hostname: string, addresses: readonly LookupAddress[], refuse: (address: string) => string | null): string | null {
  for (const { address } of addresses) {
    const reason = refuse(address);
    if (reason !== null) return `${hostname} resolves to a non-public address: ${reason}`;
  }
  return null;
}
