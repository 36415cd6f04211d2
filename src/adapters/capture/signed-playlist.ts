// Decisions: docs/decisions/0034-hls-sources.md
import type { PlaylistSource } from '../../core/capture/ports.js';
import { playlistExpiry } from '../sources/signed-url.js';

/** Signed playlist URLs are replaced this long before they expire, and at most this often. */
const REFRESH_BEFORE_EXPIRY_MS = 10 * 60 * 1000;
const MIN_REFRESH_INTERVAL_MS = 30 * 1000;

/**
 * The media playlist URL a capture records, which the source may have to hand out anew: signed
 * URLs (YouTube's) expire, and a revoked one answers 403/404/410. With it, the request headers the
 * source asks for (a site's Origin and Referer), which the next answer may change.
 */
export class SignedPlaylist {
  private lastRefreshAt = 0;
  public url: string;
  public headers: Readonly<Record<string, string>> | null;

  constructor(
    playlist: PlaylistSource,
    private readonly deps: {
      /** Asks the source for a fresh URL; null when the source has none. */
      refresh: (() => Promise<PlaylistSource | null>) | null;
      /** Stores and logs a new URL. */
      changed: (url: string, why: string) => Promise<void>;
      log: (line: string) => Promise<void>;
    },
  ) {
    this.url = playlist.url;
    this.headers = playlist.headers;
  }

  /** Refreshes a URL that says when it expires (`/expire/N/`, `expire=N`) shortly before it does. */
  async refreshBeforeExpiry(): Promise<void> {
    const expiry = playlistExpiry(this.url);
    if (expiry !== null && expiry.getTime() - Date.now() < REFRESH_BEFORE_EXPIRY_MS) await this.refresh(`it expires at ${expiry.toISOString()}`);
  }

  async refresh(why: string): Promise<void> {
    if (this.deps.refresh === null || Date.now() - this.lastRefreshAt < MIN_REFRESH_INTERVAL_MS) return;
    this.lastRefreshAt = Date.now();
    const fresh = await this.deps.refresh().catch(async (error: Error) => {
      await this.deps.log(`asking the source for a new playlist URL failed: ${error.message}`);
      return null;
    });
    if (fresh === null) return;
    this.headers = fresh.headers;
    if (fresh.url === this.url) return;
    this.url = fresh.url;
    await this.deps.changed(fresh.url, why);
  }
}
