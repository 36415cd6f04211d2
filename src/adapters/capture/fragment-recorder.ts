// Decisions: docs/decisions/0070-youtube-fragments-from-the-first.md, docs/decisions/0088-youtube-ends-only-when-it-says-so.md
import type { EndReason } from '../../core/capture/capture.js';
import { FRAGMENT_TRACKS, fragmentOf, FragmentsUnavailable, sequenceOf, type FragmentTrack } from '../../core/capture/fragment-tracks.js';
import type { FragmentRecorder, Renewal } from '../../core/capture/ports.js';
import type { FragmentedStream } from '../../core/sources/ports.js';
import { FetchError } from '../sources/http-fetch.js';
import type { RecorderDeps } from './recorder-deps.js';
import { RecordingSession } from './recording-session.js';
import { MAX_SEGMENT_BYTES } from './segment-fetcher.js';
import { describeFormats, type Fetched } from './fragment-formats.js';
import { FetchLanes } from './fragment-lanes.js';
import { Stall } from './fragment-stall.js';
import { TIMING, type FragmentTiming } from './fragment-timing.js';
import { fragmentUrl, FragmentUrls } from './fragment-urls.js';
import { firstServed } from './fragment-window.js';
import { sleep } from './sleep.js';
import { atMostEverySecond } from './spool.js';

/**
 * Records a live stream's adaptive formats fragment by fragment, from fragment 0 (or the first
 * the source still keeps) whatever the time it starts, as ytarchive and `yt-dlp --live-from-start`
 * do: the newest fragment's number comes from `X-Head-Seqnum`, every fragment up to it is fetched
 * (video and audio side by side) and stored as the capture's segments, video fragment n as
 * sequence 2n and audio as 2n + 1 (see fragment-tracks.ts). A 403 renews the URLs through the
 * source (FragmentUrls); a fragment that stays missing is a gap of its own. The stream has ended
 * only when the source says so (decision 0088): a frozen head while it says live waits, a look
 * that fails is asked again.
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

class FragmentSession extends RecordingSession {
  /** The newest fragment the source has, as its answers say. */
  private head = -1;
  /** Fragments being fetched ahead of the one stored next, by number. */
  private readonly fetching = new Map<number, Promise<Fetched[]>>();
  private readonly urls: FragmentUrls;
  private storedAny = false;
  /** Why the source refused Kura when asked for fresh URLs (the capture ends at once); null while it has not. */
  private accessLost: string | null = null;
  /** What the source said when it said the broadcast ended; null while it has not. */
  private ended: { reason: string; served: boolean } | null = null;
  /** How many fragments are fetched at once. */
  private readonly lanes: FetchLanes;

  constructor(
    deps: RecorderDeps,
    id: string,
    workerId: string,
    signal: AbortSignal,
    stream: FragmentedStream,
    renew: () => Promise<Renewal>,
    private readonly timing: FragmentTiming,
  ) {
    super(deps, id, workerId, signal);
    this.urls = new FragmentUrls(stream, renew, timing, (line) => this.log(line), this.pollWait);
    this.lanes = new FetchLanes(timing.inFlight, (line) => this.log(line));
  }

  private get stream(): FragmentedStream {
    return this.urls.stream;
  }

  protected override async recordUntilEnd(): Promise<EndReason> {
    const { fragmentSeconds } = this.stream;
    const start = this.nextSequence ?? 0;
    this.storedAny = start > 0;
    let fragment = fragmentOf(start);
    let firstTrack: FragmentTrack = start % 2 === 0 ? 'video' : 'audio';
    const newest = await this.probeHead();
    await this.log(`recording fragments from fragment ${fragment}: ${describeFormats(this.stream)}; the newest is ${newest}`);
    const kept = await this.keptFrom(fragment, firstTrack);
    if (kept > fragment) [fragment, firstTrack] = [kept, 'video'];
    const stall = new Stall(this.timing, fragmentSeconds);
    for (;;) {
      this.checkStillOurs();
      const limit = await this.limitReached();
      if (limit !== null) return this.finish(limit);
      if (this.urls.expiring) void this.urls.renewFor(this.urls.version, 'they expire soon');
      if (fragment <= this.head && (this.ended === null || this.ended.served)) {
        const tracks: readonly FragmentTrack[] = firstTrack === 'video' ? FRAGMENT_TRACKS : ['audio'];
        for (let n = fragment; n <= Math.min(this.head, fragment + this.lanes.now - 1); n++) {
          if (!this.fetching.has(n)) this.fetching.set(n, this.fetchTracks(n, n === fragment ? tracks : FRAGMENT_TRACKS));
        }
        const fetched = await (this.fetching.get(fragment) as Promise<Fetched[]>);
        this.fetching.delete(fragment);
        // refused while fetching it: what was not fetched is not lost at the source, and nothing more can be
        if (this.accessLost !== null && fetched.some((result) => 'lost' in result)) return this.finish('access_lost');
        if (fetched.some((result) => 'unmade' in result)) return this.finish('endlist', `fragment ${fragment} was never made: the broadcast ended before it`);
        await this.storeFragment(fragment, tracks, fetched);
        fragment++;
        firstTrack = 'video';
        continue;
      }
      if (this.accessLost !== null) return this.finish('access_lost');
      if (this.ended !== null) return this.finishEnded(fragment);
      const before = this.head;
      await this.probeHead();
      if (this.head > before) {
        stall.grew();
        continue;
      }
      const end = await this.stalled(stall);
      if (end !== null) return end;
      await sleep(fragmentSeconds * 1000, this.pollWait).catch((error: unknown) => {
        if (this.signal.aborted) throw error; // woken for a stop: the next round ends the capture
      });
    }
  }

  /**
   * The first fragment the source still keeps: a live stream's fragments older than its retention
   * (YouTube: 120 h, yt-dlp's and ytarchive's estimate) answer 404, so a capture that finds the
   * stream later than that starts at the first one kept, the ones before it one gap saying why.
   * The estimate is checked, and the first fragment served found by halving (a few requests) when
   * it is off: users report YouTube keeping more or less (yt-dlp#11128).
   */
  private async keptFrom(fragment: number, track: FragmentTrack): Promise<number> {
    const { fragmentSeconds } = this.stream;
    const estimate = this.head - Math.floor(this.timing.retentionSeconds / fragmentSeconds);
    if (estimate <= fragment) return fragment;
    const kept = await firstServed(this.deps.fetcher, this.stream.video, { low: fragment, guess: estimate, head: this.head });
    if (kept !== estimate)
      await this.log(
        `the first fragment the source still serves is ${kept}, not ${estimate} as ${this.timing.retentionSeconds / 3600} h of fragments would have it`,
      );
    if (kept <= fragment) return fragment;
    const hours = Math.round((this.head * fragmentSeconds) / 3600);
    const keptHours = Math.round(((this.head - kept + 1) * fragmentSeconds) / 3600);
    await this.recordGap(
      sequenceOf(fragment, track),
      sequenceOf(kept, 'video') - 1,
      (kept - fragment) * fragmentSeconds,
      `the broadcast began ${hours} h before Kura found it; YouTube keeps only its last ${keptHours} h (fragments before ${kept} are no longer served)`,
    );
    return kept;
  }

  /**
   * The head has not grown since the last look. Once it has been frozen a while the source is
   * asked, then asked again less and less often: only an end it says ends the capture (0088).
   * Null: wait on.
   */
  private async stalled(stall: Stall): Promise<EndReason | null> {
    if (!stall.due()) return null;
    const frozen = stall.frozenSeconds();
    const answer = await this.urls.look(`the newest fragment stopped growing ${frozen} s ago`);
    stall.asked();
    switch (answer.state) {
      case 'access_lost':
        this.accessLost = answer.reason;
        await this.log(`the newest fragment stopped growing, and the source refuses Kura now: ${answer.reason}`);
        return this.finish('access_lost');
      case 'ended':
        await this.log(`the newest fragment stopped growing ${frozen} s ago, and the source says the broadcast ended: ${answer.reason}`);
        this.ended = { reason: answer.reason, served: answer.stream !== null };
        return null; // what is left up to the head is fetched, then the capture ends
      case 'not_live':
        if (frozen < this.deps.limits.idleSeconds) break;
        return this.finish('not_live', `the newest fragment has not grown for ${frozen} s and the source says the stream is not live: ${answer.reason}`);
      case 'live':
        if (stall.frozenMs() < this.timing.stallLimitMs) break;
        return this.finish('idle', `the newest fragment has not grown for ${frozen} s while the source still says the stream is live: Kura gives up`);
    }
    await this.log(`the newest fragment has not grown for ${frozen} s; the source says: ${answer.state === 'live' ? 'still live' : answer.reason}; waiting`);
    return null;
  }

  /** The source said the broadcast ended and every fragment up to its head was fetched (or could not be: processed already). */
  private async finishEnded(fragment: number): Promise<EndReason> {
    const ended = this.ended as { reason: string; served: boolean };
    if (!ended.served && fragment <= this.head) {
      const first = sequenceOf(fragment, 'video');
      await this.recordGap(
        first,
        sequenceOf(this.head, 'audio'),
        (this.head - fragment + 1) * this.stream.fragmentSeconds,
        `no longer served: ${ended.reason}`,
      );
    }
    return this.finish('endlist', `the broadcast ended (${ended.reason}) and every fragment up to ${this.head} was fetched`);
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
      if (!('bytes' in result)) {
        await this.recordGap(sequence, sequence, this.stream.fragmentSeconds, `${track} of fragment ${n} ${'lost' in result ? result.lost : 'was never made'}`);
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
      await this.urls.pending; // URLs about to be replaced are not used
      const seen = this.urls.version;
      const release = await this.lanes.slot();
      try {
        const { body, headers } = await this.deps.fetcher.withHeaders(fragmentUrl(this.stream[track], n), { maxBytes: MAX_SEGMENT_BYTES, perRead: true });
        release();
        this.noteHead(headers['x-head-seqnum']);
        if (body.length > 0) {
          this.lanes.succeeded();
          return { bytes: body };
        }
        lastError = 'an empty answer';
      } catch (error) {
        release();
        if (!(error instanceof FetchError)) throw error;
        [lastError, lastStatus] = [error.message, error.status];
        if (error.refused) break;
        if (error.status === 403 && (await this.renewedFor(seen, `${track} fragment ${n} answered 403`))) continue;
        if (this.accessLost !== null || (this.ended !== null && !this.ended.served)) break;
        // YouTube's last two fragments of an ended broadcast may never be made (ytarchive: "probably not actually created")
        if (error.status === 404 && this.ended !== null && n >= this.head - 1) return { unmade: true };
        if (error.status === 401 || error.status === 0) await this.lanes.narrow(`${track} fragment ${n}: ${lastError}`);
      }
      // nothing stored yet and the fragments refused (not one of them lost: a 404): the HLS path may do
      if (!this.storedAny && tried === attempts && lastStatus !== 404)
        throw new FragmentsUnavailable(`${track} fragment ${n} could not be fetched (${lastError})`);
      await this.log(`${track} fragment ${n} attempt ${tried} failed: ${lastError}`);
      if (tried < attempts) await sleep(this.timing.backoffMs[tried - 1] as number, this.signal);
    }
    return { lost: `could not be fetched (${lastError})` };
  }

  /**
   * After a 403: fresh URLs, the renewal shared with every fetch that needs one; true to try again
   * at once with them (or with those renewed since this fetch began), false when the source no
   * longer serves the stream (ended and processed, or refusing Kura).
   */
  private async renewedFor(seen: number, why: string): Promise<boolean> {
    for (;;) {
      if (this.accessLost !== null || (this.ended !== null && !this.ended.served)) return false;
      const answer = await this.urls.renewFor(seen, why);
      if (answer === null || answer.state === 'live') return true;
      if (answer.state === 'access_lost') {
        const first = this.accessLost === null;
        this.accessLost = answer.reason; // before the log's wait: fetches answered meanwhile must not ask again
        if (first) await this.log(`${why}, and the source refuses Kura now: ${answer.reason}`);
        return false;
      }
      if (answer.state === 'ended') {
        this.ended = { reason: answer.reason, served: answer.stream !== null };
        return answer.stream !== null;
      }
      if (answer.state === 'not_live' || this.pollWait.aborted) return false;
      seen = this.urls.version; // a look that could not say: ask until the source answers
    }
  }

  /** Asks the video format's URL without a fragment number for the newest one (yt-dlp's probe); the head known so far when it cannot. */
  private async probeHead(): Promise<number> {
    const seen = this.urls.version;
    try {
      const { headers } = await this.deps.fetcher.withHeaders(this.stream.video.url, { method: 'HEAD', maxBytes: 0 });
      this.noteHead(headers['x-head-seqnum']);
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      await this.log(`asking for the newest fragment failed: ${error.message}`);
      if (error.status === 403) await this.renewedFor(seen, 'the URL answered 403');
    }
    return this.head;
  }

  private noteHead(value: string | string[] | undefined): void {
    const head = Number(Array.isArray(value) ? value[0] : value);
    if (Number.isInteger(head) && head > this.head) this.head = head;
  }
}
