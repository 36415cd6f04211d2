// Decisions: docs/decisions/0034-hls-sources.md
import { createDecipheriv, type Decipheriv } from 'node:crypto';
import { FetchError, type Fetcher } from '../sources/http-fetch.js';
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

/** Where a segment's media goes as it arrives; `discard` drops what a failed attempt wrote, so the next one starts over. */
export interface SegmentSink {
  write(bytes: Buffer): Promise<void>;
  discard(): Promise<void>;
}

/** A segment whose bytes arrived but cannot be decrypted: trying again would not help. */
class Undecryptable extends Error {}

/**
 * Gets a capture's bytes from the source: segments (decrypted when AES-128, as they arrive), their
 * initialization sections and keys, each retried with backoff while its segment stays listed.
 * Whatever cannot be had is recorded as lost through `lose`.
 */
export class SegmentFetcher {
  /** AES-128 keys fetched so far, by URL. */
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly deps: SegmentFetcherDeps) {}

  /**
   * Streams the segment's media into `sink`, decrypted when it is AES-128 encrypted; true once
   * it is all there, false when it was recorded as lost (`sink` then holds none of it).
   */
  async media(segment: MediaSegment, sink: SegmentSink): Promise<boolean> {
    const secret = segment.key === null ? null : await this.aesKey(segment.key, segment);
    if (segment.key !== null && secret === null) return false; // recorded as lost
    const what = `segment ${segment.sequence}`;
    const options = { range: segment.range, maxBytes: MAX_SEGMENT_BYTES };
    const stored = await this.listed(segment, what, sink, async () => {
      if (secret === null) {
        await this.deps.fetcher.stream(segment.url, (chunk) => sink.write(chunk), options);
        return true;
      }
      const decipher = createDecipheriv('aes-128-cbc', secret, segment.key?.iv ?? sequenceIv(segment.listed?.sequence ?? segment.sequence));
      await this.deps.fetcher.stream(segment.url, (chunk) => sink.write(decipher.update(chunk)), options);
      await sink.write(finalBlock(decipher));
      return true;
    });
    return stored === true;
  }

  /** The segment's initialization section (`#EXT-X-MAP`). */
  init(segment: MediaSegment): Promise<Buffer | null> {
    return this.resource(segment.init as Resource, segment, `initialization section of segment ${segment.sequence}`);
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
    const secret = await this.resource({ url: key.url, range: null }, segment, what);
    if (secret === null) return null; // recorded as lost
    if (secret.length !== 16) return unusable(`it has ${secret.length} bytes, not 16`);
    this.keys.set(key.url, secret);
    return secret;
  }

  private resource(resource: Resource, segment: MediaSegment, what: string): Promise<Buffer | null> {
    return this.listed(segment, what, null, () => this.deps.fetcher.bytes(resource.url, { range: resource.range, maxBytes: MAX_SEGMENT_BYTES }));
  }

  /**
   * Tries `attempt` with backoff while `segment` stays listed; null (and a gap) when it is lost.
   * A failed attempt's bytes are dropped from `sink` first. Only fetch faults are tried again:
   * anything else (the disk failing) ends the capture as it is.
   */
  private async listed<T>(segment: MediaSegment, what: string, sink: SegmentSink | null, attempt: () => Promise<T>): Promise<T | null> {
    let lastError = '';
    for (let tried = 1; tried <= SEGMENT_ATTEMPTS; tried++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof FetchError) && !(error instanceof Undecryptable)) throw error;
        await sink?.discard();
        if (error instanceof Undecryptable) {
          await this.deps.lose(segment, `could not be decrypted (${error.message})`);
          return null;
        }
        lastError = error.message;
        await this.deps.log(`${what} attempt ${tried} failed: ${lastError}`);
      }
      await sleep(BACKOFF_MS[tried - 1] ?? 5000, this.deps.signal);
      if (!(await this.stillListed(segment))) break;
    }
    await this.deps.lose(segment, `${what} could not be fetched (${lastError})`);
    return null;
  }

  private async stillListed(segment: MediaSegment): Promise<boolean> {
    const { playlistUrl, sequence } = segment.listed ?? { playlistUrl: this.deps.playlistUrl(), sequence: segment.sequence };
    try {
      const playlist = await loadPlaylist(playlistUrl, this.deps.fetcher);
      return playlist.kind === 'media' && playlist.segments.some((s) => s.sequence === sequence);
    } catch {
      return true; // the playlist itself failing says nothing about the segment
    }
  }
}

/** The last block of a deciphered segment; Undecryptable when its padding is wrong (a wrong key or IV). */
function finalBlock(decipher: Decipheriv): Buffer {
  try {
    return decipher.final();
  } catch (error) {
    throw new Undecryptable((error as Error).message);
  }
}

/** The IV of a segment whose key names none: its media sequence number, as 16 big-endian bytes. */
function sequenceIv(sequence: number): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeBigUInt64BE(BigInt(sequence), 8);
  return iv;
}
