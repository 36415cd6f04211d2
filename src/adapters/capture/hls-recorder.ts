// Decisions: docs/decisions/0034-hls-sources.md, docs/decisions/0072-a-missed-beginning-is-a-gap.md, docs/decisions/0136-separate-audio-renditions-as-lanes.md
import type { Capture, EndReason } from '../../core/capture/capture.js';
import type { AudioLane } from '../../core/sources/ports.js';
import type { PlaylistSource, StreamRecorder } from '../../core/capture/ports.js';
import { laneCount } from '../../core/capture/playlist-lanes.js';
import { resourceKey, type MediaPlaylist, type MediaSegment, type Resource } from '../sources/hls-playlist.js';
import { FetchError, sendingHeaders, type Fetcher } from '../sources/http-fetch.js';
import { describeLane, fetchRenditions, laneListing, pairedRenditions, type LanePlaylist } from './lane-listing.js';
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
  /** The audio renditions recorded beside the video, each a lane (see playlist-lanes.ts); none: one lane, the playlist's own numbering. */
  private audio: readonly AudioLane[] = [];
  /** Initialization sections of the lanes' segments, fetched once each (the last few: a stream changes them seldom). */
  private readonly inits = new Map<string, Buffer>();
  /** Whether the log said which renditions are recorded. */
  private renditionsLogged = false;
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
    this.audio = playlist.audio;
    this.playlist = new SignedPlaylist(playlist, {
      // the renditions' URLs are handed out with the video's (signed alike): the same renditions, in the same order
      refresh: refresh && (async () => this.renewedRenditions(await refresh())),
      log: (line) => this.log(line),
      changed: async (url, why) => {
        await this.persist(() => this.deps.captures.setPlaylist(this.id, url, this.audio));
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
      const playlist = fetched === null ? null : await this.listing(fetched.playlist);
      if (playlist !== null) {
        targetSeconds = Math.max(0.5, playlist.targetDurationSeconds || targetSeconds);
        const restart = restartedBroadcast(playlist, this.nextSequence);
        if (restart !== null) return this.finish('restarted', restart);
        const listsNew = this.nextSequence === null || playlist.segments.some((seg) => seg.sequence >= (this.nextSequence as number));
        const stop = await this.storeNewSegments(playlist);
        if (stop !== null) return this.finish(stop);
        // measured from when the new segments were handled: time spent retrying is not idleness
        if (listsNew) lastNewSegmentAt = Date.now();
        if (playlist.ended) return this.finish('endlist');
      }
      // the video's playlist answers (an audio rendition's may not): nothing new for a while is idleness
      if (fetched !== null && Date.now() - lastNewSegmentAt > limits.idleSeconds * 1000) return this.finish('idle');
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
      const media = first.listed?.sequence ?? first.sequence;
      const missed = media * (first.durationSeconds || playlist.targetDurationSeconds);
      if (media > 0 && missed <= MAX_MISSED_SECONDS) {
        await this.recordGap(
          0,
          first.sequence - 1,
          missed,
          `the broadcast began before Kura first looked: its first ${media} segments had left the playlist's window`,
        );
      }
      this.nextSequence = first.sequence; // the earliest segment the window offers, not the live edge
    }
    if (first.sequence > this.nextSequence) {
      const missing = Math.ceil((first.sequence - this.nextSequence) / laneCount(this.audio));
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
      if (this.audio.length > 0) {
        if (!(await this.storeWhole(segment))) continue;
      } else {
        // the part's initialization section goes in front of the segment's bytes, which are written as they arrive
        if (!(await this.matchPartToInit(segment))) continue;
        if (!(await this.segments.media(segment, this.writer))) continue;
      }
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

  /**
   * What is recorded of a poll: the video's playlist, or with audio renditions the lanes' listing
   * (see laneListing); null when a rendition's playlist could not be had (asked again next poll).
   * Before anything is recorded, a rendition numbered apart from the video is left out, saying so.
   */
  private async listing(video: MediaPlaylist): Promise<MediaPlaylist | null> {
    if (this.audio.length === 0) return video;
    let audio: LanePlaylist[];
    try {
      audio = await fetchRenditions(this.audio, this.fetcher);
    } catch (error) {
      await this.log(`audio playlist fetch failed: ${(error as Error).message}`);
      if (error instanceof FetchError && [403, 404, 410].includes(error.status)) await this.playlist.refresh(`an audio playlist answered ${error.status}`);
      return null;
    }
    const paired = this.nextSequence === null ? pairedRenditions(video, audio, this.audio) : this.audio;
    if (paired.length < this.audio.length) {
      const apart = this.audio.filter((lane) => !paired.includes(lane)).map(describeLane);
      await this.log(
        `audio ${apart.join(', ')} numbers its segments apart from the video's: Kura pairs a rendition's segments with the video's by media sequence number, so it is not recorded`,
      );
      this.audio = paired;
      await this.persist(() => this.deps.captures.setPlaylist(this.id, this.playlist.url, paired));
      return this.listing(video);
    }
    if (!this.renditionsLogged) await this.log(`recording audio ${this.audio.map(describeLane).join(', ')} beside the video`);
    this.renditionsLogged = true;
    return laneListing([{ url: this.playlist.url, playlist: video }, ...audio]);
  }

  /** The renditions of a fresh answer of the source, when it hands out as many as are recorded; the ones recorded stay otherwise. */
  private async renewedRenditions(fresh: PlaylistSource | null): Promise<PlaylistSource | null> {
    if (fresh === null) return null;
    if (fresh.audio.length === this.audio.length) this.audio = fresh.audio;
    else await this.log(`the source now hands out ${fresh.audio.length} audio rendition(s), not ${this.audio.length}: the recorded ones are kept`);
    return fresh;
  }

  /**
   * A lane's segment, stored whole: its initialization section (if any) in front of its bytes, as
   * every lane's segments are (see playlist-lanes.ts). False when it was recorded as lost.
   */
  private async storeWhole(segment: MediaSegment): Promise<boolean> {
    const init = segment.init === null ? null : await this.initOf(segment);
    if (segment.init !== null && init === null) return false;
    if (init === null) return this.segments.media(segment, this.writer);
    await this.writer.write(init);
    const sink = {
      write: (bytes: Buffer) => this.writer.write(bytes),
      // a failed attempt's bytes go, the section stays in front of the next attempt's
      discard: async () => {
        await this.writer.discard();
        await this.writer.write(init);
      },
    };
    if (await this.segments.media(segment, sink)) return true;
    await this.writer.discard();
    return false;
  }

  private async initOf(segment: MediaSegment): Promise<Buffer | null> {
    const key = resourceKey(segment.init as Resource);
    const known = this.inits.get(key);
    if (known !== undefined) return known;
    const bytes = await this.segments.init(segment);
    if (bytes === null) return null;
    if (this.inits.size >= 8) this.inits.clear();
    this.inits.set(key, bytes);
    return bytes;
  }

  protected override async startNextPart(why: string): Promise<void> {
    await super.startNextPart(why);
    this.partInit = null;
  }
}
