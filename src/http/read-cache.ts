// Decisions: docs/decisions/0117-read-cache-with-a-front-door.md
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isSafeMethod } from './auth/guard.js';
import { isAnonymousGet, type DoorAnswer } from './front-door.js';
import type { ChangeFeed } from '../shared/change-feed.js';
import { changeKindOf, type ChangeKind } from '../shared/record-changes.js';
import { readCacheKey, type CacheVary } from './read-cache-key.js';

/** A response body already serialized, with the headers that belong to it. */
export interface CachedResponse {
  body: string;
  headers: Record<string, string>;
}

/** How many reads a cache answered from memory, computed, or computed because it could not be used. */
export interface ReadCacheCounts {
  hit: number;
  miss: number;
  bypass: number;
}

/**
 * Serialized read responses, shared by all requests of one api process, each kept with the kinds of
 * change it depends on (records, search documents, follows) and dropped when any process commits
 * a change of one of them (its notification names the kind), and by this process's own writes
 * before they answer (`forget`): a caller who changed something reads the change at once, though
 * the notification arrives a few milliseconds later. Bypassed while the change feed is down, so a
 * stale answer is never served.
 */
export class ReadCache {
  private readonly entries = new Map<string, { response: CachedResponse; dependsOn: readonly ChangeKind[]; expiresAt: number }>();
  /** The URLs anonymous GETs were answered from an entry by, for the front door (the entry's key and the headers the route added). */
  private readonly doorUrls = new Map<string, DoorUrl>();
  /** Changes of each kind so far: a response computed while one of its kinds changed is not kept. */
  private readonly generations: Record<ChangeKind, number> = { records: 0, search: 0, follows: 0, moments: 0 };
  readonly counts: ReadCacheCounts = { hit: 0, miss: 0, bypass: 0 };

  constructor(
    private readonly maxEntries: number,
    private readonly feed: ChangeFeed | null,
  ) {
    feed?.onChange((payload) => this.forget(changeKindOf(payload)));
  }

  /** Drops what depends on `kind` (everything by default); a response being computed meanwhile is not kept. */
  forget(kind: ChangeKind | 'anything' = 'anything'): void {
    const kinds = kind === 'anything' ? CHANGE_KINDS : [kind];
    for (const each of kinds) this.generations[each] += 1;
    if (kind === 'anything') return this.entries.clear();
    for (const [key, entry] of this.entries) if (entry.dependsOn.includes(kind)) this.entries.delete(key);
  }

  private get usable(): boolean {
    return this.maxEntries > 0 && this.feed !== null && this.feed.connected;
  }

  /** The entry at `key` if it has not expired. */
  private fresh(key: string): CachedResponse | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.expiresAt > Date.now()) return entry?.response;
    this.entries.delete(key);
    return undefined;
  }

  /**
   * Returns the cached response for `key`, or computes, stores and returns it; `dependsOn`: the
   * kinds of change that make it stale; `keepForMs`: how long it may be kept at most, for an
   * answer that also changes without a notification.
   */
  async through(key: string, dependsOn: readonly ChangeKind[], compute: () => Promise<CachedResponse>, keepForMs = Infinity): Promise<CachedResponse> {
    if (!this.usable) {
      this.counts.bypass += 1;
      return compute();
    }
    const hit = this.fresh(key);
    if (hit !== undefined) {
      this.counts.hit += 1;
      return hit;
    }
    this.counts.miss += 1;
    const before = dependsOn.map((kind) => this.generations[kind]);
    const fresh = await compute();
    // a change committed while computing may not be in `fresh`: keep it out of the cache
    if (dependsOn.every((kind, i) => this.generations[kind] === before[i]) && this.usable) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, { response: fresh, dependsOn, expiresAt: Date.now() + keepForMs });
    }
    return fresh;
  }

  /** Notes that an anonymous GET of `url` is answered by the entry at `key`, with `headers` added by the route's hooks. */
  rememberUrl(url: string, door: Omit<DoorUrl, 'built'>): void {
    if (!this.usable || this.doorUrls.has(url)) return;
    if (this.doorUrls.size >= this.maxEntries) this.doorUrls.delete(this.doorUrls.keys().next().value as string);
    this.doorUrls.set(url, door);
  }

  /** The front door's answer to an anonymous GET of `url`: its entry's, if the cache holds it fresh (a hit); undefined otherwise. */
  answerFor(url: string): DoorAnswer | undefined {
    const door = this.doorUrls.get(url);
    if (door === undefined || !this.usable) return undefined;
    const response = this.fresh(door.key);
    if (response === undefined) {
      this.doorUrls.delete(url);
      return undefined;
    }
    this.counts.hit += 1;
    if (door.built?.from !== response) {
      const body = Buffer.from(response.body);
      const headers = { ...door.headers, ...response.headers, 'content-type': JSON_TYPE, 'content-length': body.length };
      door.built = { from: response, answer: { route: door.route, headers, body } };
    }
    return door.built.answer;
  }
}

/** An anonymous GET's URL the front door answers: from the entry at `key`, with the headers the route's hooks added (CORS). */
interface DoorUrl {
  key: string;
  route: string;
  headers: DoorAnswer['headers'];
  /** The answer last built from the entry, rebuilt when the entry is. */
  built?: { from: CachedResponse; answer: DoorAnswer };
}

const JSON_TYPE = 'application/json; charset=utf-8';

const CHANGE_KINDS: readonly ChangeKind[] = ['records', 'search', 'follows', 'moments'];

/**
 * Answers a cached JSON read: the stored body and its headers, computed (and kept, until a change of
 * a kind it `dependsOn`) on a miss. The key is derived from the parsed request (readCacheKey) and `vary`: what else `compute` reads of
 * the caller. `compute` serializes with the route's response schema, so a hit and a miss answer the same bytes.
 */
export async function sendCached(
  request: FastifyRequest,
  reply: FastifyReply,
  cached: CachedRead,
  compute: () => Promise<CachedResponse>,
  vary: CacheVary = {},
): Promise<FastifyReply> {
  const { cache, dependsOn } = cached;
  const key = readCacheKey(request, vary);
  const response = await cache.through(key, dependsOn, compute, cached.keepForMs);
  if (cached.atTheDoor === true && isAnonymousGet(request.raw) && request.raw.url !== undefined) {
    cache.rememberUrl(request.raw.url, { key, route: request.routeOptions.url ?? request.raw.url, headers: reply.getHeaders() });
  }
  return reply.headers(response.headers).type(JSON_TYPE).send(response.body);
}

/** How a route's answer is cached. */
export interface CachedRead {
  cache: ReadCache;
  /** The kinds of change that make it stale. */
  dependsOn: readonly ChangeKind[];
  /** How long it may be kept at most (default: until a change it depends on). */
  keepForMs?: number;
  /**
   * Anonymous GETs of the same URL may be answered by the front door (front-door.ts) while the
   * answer is cached: only for a route whose answer to an anonymous caller depends on nothing but
   * its URL, and whose requests nothing counts (no rate limit).
   */
  atTheDoor?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that only reads (a search): it leaves the read cache as it is. */
    readsOnly?: boolean;
  }
}

/**
 * Each request that may have changed something (an unsafe method that succeeded, on a route not
 * marked `readsOnly`) empties `cache` before its answer leaves: the caller's next read sees the
 * change, without waiting for the notification that empties the other api processes' caches.
 * A refused request changed nothing, and leaves the cache be.
 */
export function forgetReadsAfterWrites(app: FastifyInstance, cache: ReadCache): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!isSafeMethod(request.method) && reply.statusCode < 400 && request.routeOptions.config?.readsOnly !== true) cache.forget();
    done(null, payload);
  });
}
