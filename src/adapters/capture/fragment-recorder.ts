// Decisions: docs/decisions/0070-youtube-fragments-from-the-first.md
import type { EndReason } from '../../core/capture/capture.js';
import { FRAGMENT_TRACKS, fragmentOf, FragmentsUnavailable, sequenceOf, type FragmentTrack } from '../../core/capture/fragment-tracks.js';
import type { FragmentRecorder, Renewal } from '../../core/capture/ports.js';
import type { FragmentedStream, FragmentFormat } from '../../core/sources/ports.js';
import { FetchError } from '../sources/http-fetch.js';
import type { RecorderDeps } from './recorder-deps.js';
import { RecordingSession } from './recording-session.js';
import { MAX_SEGMENT_BYTES } from './segment-fetcher.js';
import { sleep } from './sleep.js';
import { atMostEverySecond } from './spool.js';

/** How the recorder paces its retries (tests shorten it). */
export interface FragmentTiming {
  /** The waits between the attempts at one fragment the source says exists, before it is recorded as lost (yt-dlp skips after 10 immediate tries; these back off). */
  backoffMs: readonly number[];
  /** A 403 renews the URLs through the source at most this often (ytarchive's pace). */
  renewEveryMs: number;
  /** The newest fragment stopped growing this long (at least; three fragments' time when longer): the source is asked whether the stream is still live. */
  quietMs: number;
  /**
   * How many fragments (each its video and audio) are fetched at once, stored in order: catching
   * up on hours of a stream found late is then not one round trip after another (yt-dlp's `-N`).
   */
  inFlight: number;
}

const TIMING: FragmentTiming = { backoffMs: [250, 500, 1000, 2000, 2000, 3000, 4000], renewEveryMs: 15_000, quietMs: 6000, inFlight: 4 };

/**
 * Records a live stream's adaptive formats fragment by fragment, from fragment 0 whatever the time
 * it starts, as ytarchive and `yt-dlp --live-from-start` do: the newest fragment's number comes
 * from `X-Head-Seqnum`, every fragment up to it is fetched (video and audio side by side) and
 * stored as the capture's segments, video fragment n as sequence 2n and audio as 2n + 1 (see
 * fragment-tracks.ts). A 403 renews the URLs through the source; a fragment that stays missing is
 * a gap of its own. The stream has ended once its head stops growing and the source no longer
 * says it is live.
 */
export function createFragmentRecorder(recorderDeps: RecorderDeps, timing: FragmentTiming = TIMING): FragmentRecorder {
  const deps = { ...recorderDeps, freeBytes: atMostEverySecond(recorderDeps.freeBytes) };
  return {
    async record(target, signal) {
      const session = new FragmentSession(deps, target.capture.livestreamId, target.workerId, signal, target.stream, target.renew, timing);
      return session.run(target.capture);
    },
  };
}

/** What came of one fragment of one track: its bytes, or why it is lost. */
type Fetched = { bytes: Buffer } | { lost: string };

class FragmentSession extends RecordingSession {
  /** The newest fragment the source has, as its answers say. */
  private head = -1;
  /** Fragments being fetched ahead of the one stored next, by number. */
  private readonly fetching = new Map<number, Promise<Fetched[]>>();
  private renewedAt = 0;
  private storedAny = false;
  /** Why the source refused Kura when asked for fresh URLs (the capture ends at once); null while it has not. */
  private accessLost: string | null = null;

  constructor(
    deps: RecorderDeps,
    id: string,
    workerId: string,
    signal: AbortSignal,
    private stream: FragmentedStream,
    private readonly renew: () => Promise<Renewal>,
    private readonly timing: FragmentTiming,
  ) {
    super(deps, id, workerId, signal);
  }

  protected override async recordUntilEnd(): Promise<EndReason> {
    const { video, audio, fragmentSeconds } = this.stream;
    const start = this.nextSequence ?? 0;
    this.storedAny = start > 0;
    let fragment = fragmentOf(start);
    let firstTrack = start % 2 === 0 ? 'video' : 'audio';
    const newest = await this.probeHead();
    await this.log(
      `recording fragments from fragment ${fragment}: video ${describe(video)} and audio ${describe(audio)}, ${fragmentSeconds} s each; the newest is ${newest}`,
    );
    let grewAt = Date.now();
    let askedAt = Date.now();
    for (;;) {
      this.checkStillOurs();
      const limit = await this.limitReached();
      if (limit !== null) return this.finish(limit);
      if (fragment <= this.head) {
        const tracks: readonly FragmentTrack[] = firstTrack === 'video' ? FRAGMENT_TRACKS : ['audio'];
        for (let n = fragment; n <= Math.min(this.head, fragment + this.timing.inFlight - 1); n++) {
          if (!this.fetching.has(n)) this.fetching.set(n, this.fetchTracks(n, n === fragment ? tracks : FRAGMENT_TRACKS));
        }
        const fetched = await (this.fetching.get(fragment) as Promise<Fetched[]>);
        this.fetching.delete(fragment);
        // refused while fetching it: what was not fetched is not lost at the source, and nothing more can be
        if (this.accessLost !== null && fetched.some((result) => 'lost' in result)) return this.finish('access_lost');
        await this.storeFragment(fragment, tracks, fetched);
        fragment++;
        firstTrack = 'video';
        continue;
      }
      if (this.accessLost !== null) return this.finish('access_lost');
      const before = this.head;
      await this.probeHead();
      if (this.head > before) {
        grewAt = askedAt = Date.now();
        continue;
      }
      // the head stopped growing: the source says whether the stream is still live (as yt-dlp asks again after about 20 s)
      const quiet = Date.now() - Math.max(grewAt, askedAt);
      if (quiet > Math.max(3 * fragmentSeconds * 1000, this.timing.quietMs)) {
        askedAt = Date.now();
        if (!(await this.renewUrls('the newest fragment stopped growing'))) return this.finish(this.accessLost === null ? 'endlist' : 'access_lost');
      }
      if (Date.now() - grewAt > this.deps.limits.idleSeconds * 1000) return this.finish('idle');
      await sleep(fragmentSeconds * 1000, this.pollWait).catch((error: unknown) => {
        if (this.signal.aborted) throw error; // woken for a stop: the next round ends the capture
      });
    }
  }

  /** The tracks' fragment `n`, fetched side by side; awaited in fragment order (a failure of one fetched ahead is seen when its turn comes). */
  private fetchTracks(n: number, tracks: readonly FragmentTrack[]): Promise<Fetched[]> {
    const fetched = Promise.all(tracks.map((track) => this.fetchFragment(track, n)));
    fetched.catch(() => undefined); // its own turn takes the failure; one fetched ahead of an earlier failure is never awaited
    return fetched;
  }

  /** Stores the tracks' fragment `n` in sequence order; what is lost is a gap (one for both tracks when both are). */
  private async storeFragment(n: number, tracks: readonly FragmentTrack[], fetched: readonly Fetched[]): Promise<void> {
    const lost = fetched.flatMap((result, i) => ('lost' in result ? [`${tracks[i] as FragmentTrack} ${result.lost}`] : []));
    if (lost.length === tracks.length) {
      const [first, last] = [sequenceOf(n, tracks[0] as FragmentTrack), sequenceOf(n, tracks.at(-1) as FragmentTrack)];
      return this.recordGap(first, last, this.stream.fragmentSeconds, `fragment ${n}: ${lost.join('; ')}`);
    }
    for (const [i, track] of tracks.entries()) {
      const result = fetched[i] as Fetched;
      const sequence = sequenceOf(n, track);
      if ('lost' in result) {
        await this.recordGap(sequence, sequence, this.stream.fragmentSeconds, `${track} of fragment ${n} ${result.lost}`);
        continue;
      }
      await this.writer.write(result.bytes);
      // the video's fragments carry the capture's time; its audio's run beside them
      await this.append({ sequence, durationSeconds: track === 'video' ? this.stream.fragmentSeconds : 0 });
      this.storedAny = true;
    }
  }

  /** One fragment of one track, tried with backoff; its bytes, or why it is lost. */
  private async fetchFragment(track: FragmentTrack, n: number): Promise<Fetched> {
    let lastError = '';
    let lastStatus = 0;
    const attempts = this.timing.backoffMs.length + 1;
    for (let tried = 1; tried <= attempts; tried++) {
      const format = this.stream[track];
      try {
        const { body, headers } = await this.deps.fetcher.withHeaders(fragmentUrl(format, n), { maxBytes: MAX_SEGMENT_BYTES });
        this.noteHead(headers['x-head-seqnum']);
        if (body.length > 0) return { bytes: body };
        lastError = 'an empty answer';
      } catch (error) {
        if (!(error instanceof FetchError)) throw error;
        lastError = error.message;
        lastStatus = error.status;
        if (error.status === 403) await this.renewUrls(`${track} fragment ${n} answered 403`);
        if (error.refused || this.accessLost !== null) break;
      }
      // nothing stored yet and the fragments refused (not one of them lost: a 404): the HLS path may do
      if (!this.storedAny && tried === attempts && lastStatus !== 404)
        throw new FragmentsUnavailable(`${track} fragment ${n} could not be fetched (${lastError})`);
      await this.log(`${track} fragment ${n} attempt ${tried} failed: ${lastError}`);
      if (tried < attempts) await sleep(this.timing.backoffMs[tried - 1] as number, this.signal);
    }
    return { lost: `could not be fetched (${lastError})` };
  }

  /** Asks the video format's URL without a fragment number for the newest one (yt-dlp's probe); the head known so far when it cannot. */
  private async probeHead(): Promise<number> {
    try {
      const { headers } = await this.deps.fetcher.withHeaders(this.stream.video.url, { method: 'HEAD', maxBytes: 0 });
      this.noteHead(headers['x-head-seqnum']);
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      await this.log(`asking for the newest fragment failed: ${error.message}`);
      if (error.status === 403) await this.renewUrls('the URL answered 403');
    }
    return this.head;
  }

  private noteHead(value: string | string[] | undefined): void {
    const head = Number(Array.isArray(value) ? value[0] : value);
    if (Number.isInteger(head) && head > this.head) this.head = head;
  }

  /**
   * Renews the formats' URLs through the source (they expire, and a 403 says so), at most every
   * `renewEveryMs`; false once the source says the stream is no longer live, or refuses Kura
   * (`accessLost` says why: the capture ends at its next step, not after its fragments' retries).
   */
  private async renewUrls(why: string): Promise<boolean> {
    if (this.accessLost !== null) return false;
    if (Date.now() - this.renewedAt < this.timing.renewEveryMs) return true;
    this.renewedAt = Date.now();
    const renewed = await this.renew().catch(async (error: Error) => {
      await this.log(`renewing the fragment URLs failed: ${error.message}`);
      return this.stream;
    });
    if (renewed === null) {
      await this.log(`${why}, and the source says the stream is no longer live`);
      return false;
    }
    if ('accessLost' in renewed) {
      this.accessLost = renewed.accessLost;
      await this.log(`${why}, and the source refuses Kura now: ${renewed.accessLost}`);
      return false;
    }
    this.stream = renewed;
    await this.log(`fragment URLs renewed (${why})`);
    return true;
  }
}

/** The URL of fragment `n` of a format: its URL with `sq` set (as yt-dlp's `update_url_query` does). */
export function fragmentUrl(format: FragmentFormat, n: number): string {
  const url = new URL(format.url);
  url.searchParams.set('sq', String(n));
  return url.href;
}

function describe(format: FragmentFormat): string {
  const size = format.height === null ? '' : ` ${format.width ?? '?'}x${format.height}${format.fps ? `@${format.fps}` : ''}`;
  return `${format.id} (${format.codec}${size}, ${Math.round(format.bitrate / 1000)} kbit/s)`;
}
