// Decisions: docs/decisions/0061-atom-feeds.md
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** A strong validator of a body: the same bytes always give the same tag, in every process. */
export function entityTag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/**
 * When each feed's current body was first served, so `Last-Modified` only moves forward, by at
 * least a second per change: a date read from the entries would move back when one leaves the
 * feed (a takedown, a stream that ended) and cannot tell apart two changes in one second.
 */
export class FeedVersions {
  private readonly versions: LRUCache<string, { tag: string; since: number }>;

  constructor(maxFeeds: number) {
    this.versions = new LRUCache({ max: maxFeeds });
  }

  /** The Last-Modified date of `key` whose body has `tag`, now or when that body was first served. */
  since(key: string, tag: string, now = Date.now()): Date {
    const known = this.versions.get(key);
    if (known?.tag === tag) return new Date(known.since);
    const since = Math.max(Math.floor(now / 1000) * 1000, known === undefined ? 0 : known.since + 1000);
    this.versions.set(key, { tag, since });
    return new Date(since);
  }
}

/**
 * Whether a GET may be answered 304 (RFC 9110 §13.1): `If-None-Match` decides when sent (weak
 * comparison, `*` matches); otherwise `If-Modified-Since`, a valid date no earlier than `lastModified`.
 */
export function isNotModified(headers: Record<string, string | string[] | undefined>, tag: string, lastModified: Date): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    const tags = String(ifNoneMatch)
      .split(',')
      .map((t) => t.trim().replace(/^W\//, ''));
    return tags.includes('*') || tags.includes(tag);
  }
  const ifModifiedSince = headers['if-modified-since'];
  if (typeof ifModifiedSince !== 'string') return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && lastModified.getTime() <= since;
}
