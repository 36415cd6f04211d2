import { createDecipheriv } from 'node:crypto';
import type { Fetcher } from '../sources/http-fetch.js';
import { loadPlaylist, type MediaSegment, type Resource, type SegmentKey } from '../sources/hls-playlist.js';
import { sleep } from './sleep.js';

/** Attempts for one segment before it is recorded as lost (while it stays in the window). */
const SEGMENT_ATTEMPTS = 8;
const BACKOFF_MS = [250, 500, 1000, 2000, 2000, 3000, 4000, 5000];
/** A larger segment, init section or key is refused (about 10 s of 4K video at 200 Mbit/s). */
export const MAX_SEGMENT_BYTES = 256 * 1024 * 1024;

export interface SegmentFetcherDeps {
  fetcher: Fetcher;
  signal: AbortSignal;
  /** The media playlist being recorded now (it may be refreshed). */
  playlistUrl: () => string;
  log: (line: string) => Promise<void>;
  /** Records the segment as lost, with why. */
  lose: (segment: MediaSegment, reason: string) => Promise<void>;
}

/**
 * Gets a capture's bytes from the source: segments (decrypted when AES-128), their
 * initialization sections and keys, each retried with backoff while its segment stays listed.
 * Whatever cannot be had is recorded as lost through `lose`, and null is returned.
 */
export class SegmentFetcher {
  /** AES-128 keys fetched so far, by URL. */
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly deps: SegmentFetcherDeps) {}

  /** The segment's media, decrypted when it is AES-128 encrypted. */
  async media(segment: MediaSegment): Promise<Buffer | null> {
    const fetched = await this.listed(segment, segment, `segment ${segment.sequence}`);
    return fetched && (await this.decrypted(segment, fetched));
  }

  /** The segment's initialization section (`#EXT-X-MAP`). */
  init(segment: MediaSegment): Promise<Buffer | null> {
    return this.listed(segment.init as Resource, segment, `initialization section of segment ${segment.sequence}`);
  }

  private async decrypted(segment: MediaSegment, bytes: Buffer): Promise<Buffer | null> {
    const { key } = segment;
    if (key === null) return bytes;
    const secret = await this.aesKey(key, segment);
    if (secret === null) return null;
    try {
      const decipher = createDecipheriv('aes-128-cbc', secret, key.iv ?? sequenceIv(segment.sequence));
      return Buffer.concat([decipher.update(bytes), decipher.final()]);
    } catch (error) {
      await this.deps.lose(segment, `could not be decrypted (${(error as Error).message})`);
      return null;
    }
  }

  private async aesKey(key: SegmentKey, segment: MediaSegment): Promise<Buffer | null> {
    const what = `key of segment ${segment.sequence}`;
    const unusable = async (why: string) => {
      await this.deps.lose(segment, `${what} is unusable: ${why}`);
      return null;
    };
    if (key.url === null) return unusable('the playlist names no key URI');
    const known = this.keys.get(key.url);
    if (known !== undefined) return known;
    const secret = await this.listed({ url: key.url, range: null }, segment, what);
    if (secret === null) return null; // recorded as lost
    if (secret.length !== 16) return unusable(`it has ${secret.length} bytes, not 16`);
    this.keys.set(key.url, secret);
    return secret;
  }

  /** Fetches `resource` with backoff while `segment` stays listed; null (and a gap) when it is lost. */
  private async listed(resource: Resource, segment: MediaSegment, what: string): Promise<Buffer | null> {
    let lastError = '';
    for (let attempt = 1; attempt <= SEGMENT_ATTEMPTS; attempt++) {
      try {
        return await this.deps.fetcher.bytes(resource.url, { range: resource.range, maxBytes: MAX_SEGMENT_BYTES });
      } catch (error) {
        lastError = (error as Error).message;
        await this.deps.log(`${what} attempt ${attempt} failed: ${lastError}`);
      }
      await sleep(BACKOFF_MS[attempt - 1] ?? 5000, this.deps.signal);
      if (!(await this.stillListed(segment.sequence))) break;
    }
    await this.deps.lose(segment, `${what} could not be fetched (${lastError})`);
    return null;
  }

  private async stillListed(sequence: number): Promise<boolean> {
    try {
      const playlist = await loadPlaylist(this.deps.playlistUrl(), this.deps.fetcher);
      return playlist.kind === 'media' && playlist.segments.some((s) => s.sequence === sequence);
    } catch {
      return true; // the playlist itself failing says nothing about the segment
    }
  }
}

/** The IV of a segment whose key names none: its media sequence number, as 16 big-endian bytes. */
function sequenceIv(sequence: number): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeBigUInt64BE(BigInt(sequence), 8);
  return iv;
}
