// Decisions: docs/decisions/0034-hls-sources.md, docs/decisions/0072-a-missed-beginning-is-a-gap.md
import type { Capture, EndReason } from '../../core/capture/capture.js';
import type { PlaylistSource, StreamRecorder } from '../../core/capture/ports.js';
import { resourceKey, type MediaPlaylist, type MediaSegment } from '../sources/hls-playlist.js';
import { sendingHeaders, type Fetcher } from '../sources/http-fetch.js';
import { RecordingSession } from './recording-session.js';
import { SegmentFetcher } from './segment-fetcher.js';
import { SignedPlaylist } from './signed-playlist.js';
import type { RecorderDeps } from './recorder-deps.js';
import { sleep } from './sleep.js';
import { atMostEverySecond } from './spool.js';
import { fetchMediaPlaylist, restartedBroadcast, SourceAbsence, type FetchedPlaylist } from './source-end.js';

/**
 * The longest beginning a first look may find missing: media sequence numbers that would mean
 * more are not counted from the broadcast's start (some servers number from the clock).
 */
const MAX_MISSED_SECONDS = 366 * 24 * 3600;

/**
 * Our own HLS poller: starts at the earliest segment of the window, polls as the HLS spec says,
 * appends each segment to the current chunk of its part (fsync), then records it in PostgreSQL,
 * so a restarted capture continues at the next missing segment. Full chunks are uploaded to the
 * archive store as the capture goes, so any worker can resume it and local disk stays bounded.
 * ffmpeg is not involved until finalize.
 */
export function createHlsRecorder(recorderDeps: RecorderDeps): StreamRecorder {
  const deps = { ...recorderDeps, freeBytes: atMostEverySecond(recorderDeps.freeBytes) };
  return {
    async record(target, signal) {
      const session = new HlsSession(deps, target.capture.livestreamId, target.workerId, signal);
      return session.record(target.capture, target.playlist, target.refreshPlaylist ?? null);
    },
  };
}

/** The HLS protocol of a recording: polls the media playlist as the HLS spec says and stores each new segment in order. */
class HlsSession extends RecordingSession {
  /** The fMP4 initialization section the current part starts with (null: none, or not known after a resume). */
  private partInit: string | null = null;
  private playlist!: SignedPlaylist;
  private readonly segments: SegmentFetcher;
  private readonly fetcher: Fetcher;

  constructor(deps: RecorderDeps, id: string, workerId: string, signal: AbortSignal) {
    super(deps, id, workerId, signal);
    // every request of the capture carries the headers the source asks for (none for most)
    this.fetcher = sendingHeaders(deps.fetcher, () => this.playlist.headers);
    this.segments = new SegmentFetcher({
      fetcher: this.fetcher,
      signal,
      playlistUrl: () => this.playlist.url,
      log: (line) => this.log(line),
      lose: (segment, reason) => this.recordGap(segment.sequence, segment.sequence, segment.durationSeconds, reason),
    });
  }

  async record(capture: Capture, playlist: PlaylistSource, refresh: (() => Promise<PlaylistSource | null>) | null): Promise<EndReason> {
    this.playlist = new SignedPlaylist(playlist, {
      refresh,
      log: (line) => this.log(line),
      changed: async (url, why) => {
        await this.persist(() => this.deps.captures.setPlaylist(this.id, url));
        await this.log(`playlist URL refreshed (${why}): ${url}`);
      },
    });
    return this.run(capture);
  }

  protected override async recordUntilEnd(): Promise<EndReason> {
    const { limits } = this.deps;
    let lastNewSegmentAt = Date.now();
    const absence = new SourceAbsence(limits);
    let previous: FetchedPlaylist | null = null;
    let targetSeconds = 2;
    for (;;) {
      this.checkStillOurs();
      const limit = await this.limitReached(); // before the first fetch too: never start on a full disk
      if (limit !== null) return this.finish(limit);
      const fetched = await fetchMediaPlaylist(this.playlist, this.fetcher, absence, (line) => this.log(line), previous);
      if (typeof fetched === 'string') return this.finish(fetched);
      if (fetched !== null) {
        const { playlist } = fetched;
        targetSeconds = Math.max(0.5, playlist.targetDurationSeconds || targetSeconds);
        const restart = restartedBroadcast(playlist, this.nextSequence);
        if (restart !== null) return this.finish('restarted', restart);
        const listsNew = this.nextSequence === null || playlist.segments.some((seg) => seg.sequence >= (this.nextSequence as number));
        const stop = await this.storeNewSegments(playlist);
        if (stop !== null) return this.finish(stop);
        // measured from when the new segments were handled: time spent retrying is not idleness
        if (listsNew) lastNewSegmentAt = Date.now();
        if (playlist.ended) return this.finish('endlist');
        if (Date.now() - lastNewSegmentAt > limits.idleSeconds * 1000) return this.finish('idle');
      }
      const changed = fetched !== null && fetched !== previous;
      previous = fetched ?? previous;
      // HLS §6.3.4: wait one target duration after a change, half of it when nothing changed
      await sleep((changed ? targetSeconds : targetSeconds / 2) * 1000, this.pollWait).catch((error: unknown) => {
        if (this.signal.aborted) throw error; // woken for a stop: the next round ends the capture
      });
    }
  }

  /**
   * Stores every listed segment from `nextSequence` on, in order (or records it as lost). Returns
   * why recording must stop (a limit reached, or a stream that cannot be recorded), else null.
   */
  private async storeNewSegments(playlist: MediaPlaylist): Promise<EndReason | null> {
    const first = playlist.segments[0];
    if (first === undefined) return null;
    if (this.nextSequence === null) {
      await this.log(`recording ${this.playlist.url} from sequence ${first.sequence} (${playlist.segments.length} segments in the window)`);
      // a source numbers a broadcast's segments from 0: a window beginning later means its beginning is gone
      const missed = first.sequence * (first.durationSeconds || playlist.targetDurationSeconds);
      if (first.sequence > 0 && missed <= MAX_MISSED_SECONDS) {
        await this.recordGap(
          0,
          first.sequence - 1,
          missed,
          `the broadcast began before Kura first looked: its first ${first.sequence} segments had left the playlist's window`,
        );
      }
      this.nextSequence = first.sequence; // the earliest segment the window offers, not the live edge
    }
    if (first.sequence > this.nextSequence) {
      const missing = first.sequence - this.nextSequence;
      await this.recordGap(this.nextSequence, first.sequence - 1, missing * playlist.targetDurationSeconds, 'left the window before it could be fetched');
    }
    // a run of stitched-in ads is cut as one break, once the segment after it (or the listing's end) is reached
    const ads: MediaSegment[] = [];
    const cutAds = async () => {
      const [first, last] = [ads[0], ads.at(-1)];
      if (first === undefined || last === undefined) return;
      await this.recordAdBreak(
        first.sequence,
        last.sequence,
        ads.reduce((sum, ad) => sum + ad.durationSeconds, 0),
      );
      ads.length = 0;
    };
    for (const segment of playlist.segments) {
      if (segment.sequence < (this.nextSequence ?? 0)) continue;
      this.checkStillOurs();
      if (segment.ad) {
        ads.push(segment);
        continue;
      }
      await cutAds();
      const limit = await this.limitReached();
      if (limit !== null) return limit;
      if (segment.key !== null && segment.key.method !== 'AES-128') {
        await this.log(`segment ${segment.sequence} is encrypted with ${segment.key.method}, which Kura cannot record without re-encoding or DRM keys`);
        return 'unsupported_encryption';
      }
      if (segment.discontinuity && this.writer.offset > 0) await this.startNextPart(`discontinuity at sequence ${segment.sequence}`);
      // the part's initialization section goes in front of the segment's bytes, which are written as they arrive
      if (!(await this.matchPartToInit(segment))) continue;
      if (!(await this.segments.media(segment, this.writer))) continue;
      await this.append(segment);
    }
    await cutAds();
    return null;
  }

  /**
   * fMP4 segments are only playable behind their initialization section (`#EXT-X-MAP`): each
   * part starts with it, so a part is a complete fragmented MP4. A new section (or one not
   * known after a resume) starts a new part. The section's bytes are recorded with the first
   * segment stored after them, so a crash in between cuts them and the resumed capture writes
   * them again. False when the section could not be fetched (the segment is recorded as lost).
   */
  private async matchPartToInit(segment: MediaSegment): Promise<boolean> {
    const { init } = segment;
    if (init === null) {
      // MPEG-TS segments need nothing in front; after fMP4 ones they need a part of their own
      if (this.partInit !== null) await this.startNextPart(`segments without initialization section from sequence ${segment.sequence}`);
      return true;
    }
    const key = resourceKey(init);
    if (key === this.partInit) return true;
    const bytes = await this.segments.init(segment);
    if (bytes === null) return false;
    if (this.writer.offset > 0) await this.startNextPart(`initialization section ${init.url} from sequence ${segment.sequence}`);
    await this.writer.writeInit(bytes);
    this.totalBytes += bytes.length;
    this.partInit = key;
    return true;
  }

  protected override async startNextPart(why: string): Promise<void> {
    await super.startNextPart(why);
    this.partInit = null;
  }
}
