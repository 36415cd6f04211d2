// Decisions: docs/decisions/0088-youtube-ends-only-when-it-says-so.md
import type { Renewal } from '../../core/capture/ports.js';
import type { FragmentedStream, FragmentFormat } from '../../core/sources/ports.js';
import { sleep } from './sleep.js';

/** How the URLs are renewed (tests shorten it). */
export interface RenewalTiming {
  /** A renewal asks the source at most this often (ytarchive's 15 s). */
  renewEveryMs: number;
  /** A renewal the source could not answer is asked again after a wait doubling up to this. */
  renewMaxBackoffMs: number;
}

/** A part of a URL's life spent before it is renewed unasked: YouTube's last about 6 h; ytarchive renews hourly, yt-dlp after 5 h. */
const RENEW_AT_LIFE = 0.8;

/**
 * The formats' URLs a capture of fragments fetches with. They expire: one renewal at a time asks
 * the source for fresh ones, and every fetch that met an expired URL (403) awaits that same
 * renewal instead of retrying the dead URL; a renewal the source cannot answer (yt-dlp failing,
 * a rate limit) is asked again with backoff; URLs are renewed unasked before their `expire`.
 */
export class FragmentUrls {
  /** Counts renewals: a fetch that began before one does not ask for another. */
  version = 0;
  private renewing: Promise<Renewal> | null = null;
  private askedAt = 0;
  private receivedAt = Date.now();

  constructor(
    public stream: FragmentedStream,
    private readonly ask: () => Promise<Renewal>,
    private readonly timing: RenewalTiming,
    private readonly log: (line: string) => Promise<void>,
    private readonly wait: AbortSignal,
  ) {}

  /** Whether the URLs are due for renewal before they expire (`expire` in them, seconds since the epoch). */
  get expiring(): boolean {
    const expire = this.expireMs();
    return expire !== null && Date.now() > this.receivedAt + RENEW_AT_LIFE * (expire - this.receivedAt);
  }

  /**
   * A renewal under way when the URLs have expired: a fetch about to start awaits it rather than
   * meet a 403. Null while they are good (a renewal before their end lets fetches go on).
   */
  get pending(): Promise<Renewal> | null {
    const expire = this.expireMs();
    return expire !== null && Date.now() < expire ? null : this.renewing;
  }

  private expireMs(): number | null {
    const expire = Number(new URL(this.stream.video.url).searchParams.get('expire'));
    return Number.isFinite(expire) && expire > 0 ? expire * 1000 : null;
  }

  /**
   * Fresh URLs for a fetch that began with renewal `seen` and met an expired URL: none when the URLs
   * were renewed since; else the renewal under way, or a new one, tried until the source answers
   * (anything but `unknown`, or a stop). Resolves with the source's answer.
   */
  renewFor(seen: number, why: string): Promise<Renewal | null> {
    if (seen !== this.version) return Promise.resolve(null);
    return this.once(why, true);
  }

  /** One look at the source (for a frozen head: is the stream still on?), shared with a renewal under way. */
  look(why: string): Promise<Renewal> {
    return this.once(why, false);
  }

  private once(why: string, untilAnswered: boolean): Promise<Renewal> {
    this.renewing ??= this.renew(why, untilAnswered).finally(() => (this.renewing = null));
    return this.renewing;
  }

  private async renew(why: string, untilAnswered: boolean): Promise<Renewal> {
    let backoff = this.timing.renewEveryMs;
    for (;;) {
      const since = Date.now() - this.askedAt;
      if (since < this.timing.renewEveryMs && !(await this.waited(this.timing.renewEveryMs - since))) return stopped;
      this.askedAt = Date.now();
      const answer = await this.ask().catch((error: Error): Renewal => ({ state: 'unknown', reason: error.message }));
      const fresh = answer.state === 'live' || answer.state === 'ended' ? answer.stream : null;
      if (fresh !== null) {
        this.stream = fresh;
        this.receivedAt = Date.now();
        this.version++;
        await this.log(`fragment URLs renewed (${why})`);
        return answer;
      }
      if (answer.state !== 'unknown' || !untilAnswered) return answer;
      await this.log(`renewing the fragment URLs failed (${answer.reason}); asking again in ${Math.round(backoff / 1000)} s`);
      if (!(await this.waited(backoff))) return stopped;
      backoff = Math.min(backoff * 2, this.timing.renewMaxBackoffMs);
    }
  }

  /** Waits `ms`; false when a stop or shutdown cut the wait short. */
  private waited(ms: number): Promise<boolean> {
    return sleep(ms, this.wait).then(
      () => true,
      () => false,
    );
  }
}

/** What a renewal cut short by a stop answers: nothing known. */
const stopped: Renewal = { state: 'unknown', reason: 'stopped while renewing' };

/** The URL of fragment `n` of a format: its URL with `sq` set (as yt-dlp's `update_url_query` does). */
export function fragmentUrl(format: FragmentFormat, n: number): string {
  const url = new URL(format.url);
  url.searchParams.set('sq', String(n));
  return url.href;
}
