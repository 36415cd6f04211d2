import type { FastifyReply } from 'fastify';
import type { ChangeFeed } from '../core/livestream/ports.js';

/** A response body already serialized, with the headers that belong to it. */
export interface CachedResponse {
  body: string;
  headers: Record<string, string>;
}

/**
 * Serialized read responses, shared by all requests of one api process and emptied whenever
 * any process commits a change to records. Bypassed while the change feed is down, so a
 * stale answer is never served.
 */
export class ReadCache {
  private readonly entries = new Map<string, CachedResponse>();
  private generation = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly feed: ChangeFeed | null,
  ) {
    feed?.onChange(() => {
      this.generation += 1;
      this.entries.clear();
    });
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
 * Answers a cached JSON read: the stored body and its headers, computed (and kept) on a miss.
 * `compute` serializes with the route's response schema, so a hit and a miss answer the same bytes.
 */
export async function sendCached(reply: FastifyReply, cache: ReadCache, key: string, compute: () => Promise<CachedResponse>): Promise<FastifyReply> {
  const cached = await cache.through(key, compute);
  return reply.headers(cached.headers).type('application/json; charset=utf-8').send(cached.body);
}
