// Decisions: docs/decisions/0007-read-cache.md
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isSafeMethod } from './auth/guard.js';
import type { ChangeFeed } from '../shared/change-feed.js';
import { readCacheKey, type CacheVary } from './read-cache-key.js';

/** A response body already serialized, with the headers that belong to it. */
export interface CachedResponse {
  body: string;
  headers: Record<string, string>;
}

/**
 * Serialized read responses, shared by all requests of one api process and emptied whenever
 * any process commits a change to records (its notification), and by this process's own writes
 * before they answer (`forget`): a caller who changed something reads the change at once, though
 * the notification arrives a few milliseconds later. Bypassed while the change feed is down, so a
 * stale answer is never served.
 */
export class ReadCache {
  private readonly entries = new Map<string, CachedResponse>();
  private generation = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly feed: ChangeFeed | null,
  ) {
    feed?.onChange(() => this.forget());
  }

  /** Empties the cache; a response being computed meanwhile is not kept. */
  forget(): void {
    this.generation += 1;
    this.entries.clear();
  }

  private get usable(): boolean {
    return this.maxEntries > 0 && this.feed !== null && this.feed.connected;
  }

  /** Returns the cached response for `key`, or computes, stores and returns it. */
  async through(key: string, compute: () => Promise<CachedResponse>): Promise<CachedResponse> {
    if (!this.usable) return compute();
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const generationBefore = this.generation;
    const fresh = await compute();
    // a change committed while computing may not be in `fresh`: keep it out of the cache
    if (this.generation === generationBefore && this.usable) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, fresh);
    }
    return fresh;
  }
}

/**
 * Answers a cached JSON read: the stored body and its headers, computed (and kept) on a miss. The
 * key is derived from the parsed request (readCacheKey) and `vary`: what else `compute` reads of
 * the caller. `compute` serializes with the route's response schema, so a hit and a miss answer the same bytes.
 */
export async function sendCached(
  request: FastifyRequest,
  reply: FastifyReply,
  cache: ReadCache,
  compute: () => Promise<CachedResponse>,
  vary: CacheVary = {},
): Promise<FastifyReply> {
  const cached = await cache.through(readCacheKey(request, vary), compute);
  return reply.headers(cached.headers).type('application/json; charset=utf-8').send(cached.body);
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
  app.addHook('onSend', async (request, reply) => {
    if (!isSafeMethod(request.method) && reply.statusCode < 400 && request.routeOptions.config?.readsOnly !== true) cache.forget();
  });
}
