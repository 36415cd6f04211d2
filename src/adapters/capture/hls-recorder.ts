// Decisions: docs/decisions/0034-hls-sources.md
import path from 'node:path';
import type { Capture, EndReason } from '../../core/capture/capture.js';
import type { StreamRecorder } from '../../core/capture/ports.js';
import { keepLease } from '../../core/capture/lease.js';
import { redactUrlsIn } from '../../core/sources/public-url.js';
import { resourceKey, type MediaPlaylist, type MediaSegment } from '../sources/hls-playlist.js';
import { ChunkUploader } from './chunk-uploader.js';
import { ChunkWriter } from './chunk-writer.js';
import { findResumePoint } from './resume-point.js';
import { SegmentFetcher } from './segment-fetcher.js';
import { SignedPlaylist } from './signed-playlist.js';
import type { RecorderDeps } from './recorder-deps.js';
import { sleep } from './sleep.js';
import { atMostEverySecond } from './spool.js';
import { fetchMediaPlaylist, restartedBroadcast, SourceAbsence, type FetchedPlaylist } from './source-end.js';
import { untilDatabaseAnswers } from './database-wait.js';

class LeaseLost extends Error {}

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
      const session = new RecordingSession(deps, target.capture.livestreamId, target.workerId, signal);
      return session.run(target.capture, target.playlistUrl, target.refreshPlaylist ?? null);
    },
  };
}

class RecordingSession {
  private readonly writer: ChunkWriter;
  private readonly uploader: ChunkUploader;
  /** The fMP4 initialization section the current part starts with (null: none, or not known after a resume). */
  private partInit: string | null = null;
  private nextSequence: number | null = null;
  private totalBytes = 0;
  private totalSeconds = 0;
  private leaseLost = false;
  /** Set when an admin asks to stop; `wake` cuts the wait between two polls short then. */
  private stopRequested = false;
  private readonly wake = new AbortController();
  /** Ends the wait between two polls: shutdown or a stop (one signal for the capture, not one per poll). */
  private readonly pollWait: AbortSignal;
  private playlist!: SignedPlaylist;
  private readonly segments: SegmentFetcher;

  constructor(
    private readonly deps: RecorderDeps,
    private readonly id: string,
    private readonly workerId: string,
    private readonly signal: AbortSignal,
  ) {
    this.uploader = new ChunkUploader({
      store: deps.store,
      captures: deps.captures,
      livestreamId: id,
      workerId,
      log: (line) => this.log(line),
      onLeaseLost: () => (this.leaseLost = true),
    });
    this.writer = new ChunkWriter(deps.spool, id, deps.limits, (chunk) => this.uploader.enqueue(chunk));
    this.pollWait = AbortSignal.any([signal, this.wake.signal]);
    this.segments = new SegmentFetcher({
      fetcher: deps.fetcher,
      signal,
      playlistUrl: () => this.playlist.url,
      log: (line) => this.log(line),
      lose: (segment, reason) => this.recordGap(segment.sequence, segment.sequence, segment.durationSeconds, reason),
    });
  }

  /** The encoder log is public (`/api/logz`, the log download): the URLs in it are written redacted (a signed or tokened playlist's query). */
  private log(line: string): Promise<void> {
    return this.persist(() => this.deps.captures.appendLog(this.id, [`[kura] ${redactUrlsIn(line)}`]));
  }

  /** Progress waits for PostgreSQL while it is away (see untilDatabaseAnswers), then the capture goes on. */
  private persist<T>(work: () => Promise<T>): Promise<T> {
    return untilDatabaseAnswers(work, this.signal, (awayMs) => {
      void this.deps.captures
        .appendLog(this.id, [`[kura] PostgreSQL could not be reached for ${(awayMs / 1000).toFixed(1)} s; recording paused and went on`])
        .catch(() => undefined);
    });
  }

  async run(capture: Capture, playlistUrl: string, refresh: (() => Promise<string | null>) | null): Promise<EndReason> {
    this.playlist = new SignedPlaylist(playlistUrl, {
      refresh,
      log: (line) => this.log(line),
      changed: async (url, why) => {
        await this.persist(() => this.deps.captures.setPlaylist(this.id, url));
        await this.log(`playlist URL refreshed (${why}): ${url}`);
      },
    });
    this.stopRequested = capture.stopRequested !== null;
    const stopLease = keepLease(this.deps.captures, this.id, this.workerId, this.deps.limits.heartbeatSeconds * 1000, {
      onLost: () => (this.leaseLost = true),
      onStop: () => {
        this.stopRequested = true;
        this.wake.abort();
      },
    });
    try {
      await this.resume(capture);
      const reason = await this.poll();
      await this.writer.seal(false);
      await this.uploader.drain(); // the capture ends only once all of it is in the store
      if (this.leaseLost) throw new LeaseLost(`another worker took over the capture of ${this.id}`);
      return reason;
    } catch (error) {
      await this.handOver();
      throw error;
    } finally {
      stopLease();
    }
  }

  /**
   * Stopped (shutdown, or the lease lost): what is on local disk is uploaded for the next worker
   * within `handoverMs`, unless another worker holds the capture already; the rest stays here.
   */
  private async handOver(): Promise<void> {
    if (this.signal.aborted && !this.leaseLost) {
      await this.writer.seal(false).catch(() => undefined);
      await this.uploader.drain(this.deps.limits.handoverMs);
    }
    this.uploader.stop();
    await this.writer.close();
  }

  /** Continues where the stored progress ends, with the bytes that really exist (see findResumePoint). */
  private async resume(capture: Capture): Promise<void> {
    const point = await findResumePoint(this.deps, capture);
    if (point.rewoundTo !== null) {
      await this.log(
        `resuming: part ${point.rewoundTo.part} from sequence ${point.rewoundTo.sequence} on is neither stored nor on this worker's disk; fetching it again while the source lists it`,
      );
    } else if (capture.nextSequence !== null) {
      await this.log(`resuming at sequence ${capture.nextSequence} in part ${point.part}`);
    }
    this.nextSequence = point.rewoundTo?.sequence ?? capture.nextSequence;
    for (const part of await this.deps.captures.parts(this.id)) {
      this.totalBytes += part.bytes;
      this.totalSeconds += part.seconds;
    }
    for (const chunk of point.toUpload) this.uploader.enqueue(chunk);
    await this.writer.openAt(point.part, point.offset, point.appendTo);
  }

  private async poll(): Promise<EndReason> {
    const { limits } = this.deps;
    let lastNewSegmentAt = Date.now();
    const absence = new SourceAbsence(limits);
    let previous: FetchedPlaylist | null = null;
    let targetSeconds = 2;
    for (;;) {
      this.checkStillOurs();
      const limit = await this.limitReached(); // before the first fetch too: never start on a full disk
      if (limit !== null) return this.finish(limit);
      const fetched = await fetchMediaPlaylist(this.playlist, this.deps.fetcher, absence, (line) => this.log(line), previous);
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
      this.nextSequence = first.sequence; // the earliest segment the window offers, not the live edge
      await this.log(`recording ${this.playlist.url} from sequence ${first.sequence} (${playlist.segments.length} segments in the window)`);
    }
    if (first.sequence > this.nextSequence) {
      const missing = first.sequence - this.nextSequence;
      await this.recordGap(this.nextSequence, first.sequence - 1, missing * playlist.targetDurationSeconds, 'left the window before it could be fetched');
    }
    for (const segment of playlist.segments) {
      if (segment.sequence < (this.nextSequence ?? 0)) continue;
      this.checkStillOurs();
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
    return null;
  }

  /** Records the segment the writer has taken, once it is on disk. */
  private async append(segment: MediaSegment): Promise<void> {
    const length = await this.writer.commit(); // on disk before PostgreSQL says it is stored
    this.totalBytes += length;
    this.totalSeconds += segment.durationSeconds;
    const kbps = (length * 8) / 1000 / Math.max(segment.durationSeconds, 0.001);
    const stored = { sequence: segment.sequence, part: this.writer.part, endOffset: this.writer.offset, durationSeconds: segment.durationSeconds };
    const line = `[kura] segment ${segment.sequence} stored: ${segment.durationSeconds.toFixed(3)} s, ${length} bytes, ${kbps.toFixed(0)} kbit/s`;
    await this.persist(() => this.deps.captures.recordSegment(this.id, stored, [line]));
    this.nextSequence = segment.sequence + 1;
    await this.writer.sealIfFull(segment.durationSeconds);
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

  private async startNextPart(why: string): Promise<void> {
    await this.writer.nextPart();
    this.partInit = null;
    await this.persist(() => this.deps.captures.startPart(this.id, this.writer.part));
    await this.log(`${why}: starting part ${this.writer.part}`);
  }

  private async recordGap(firstSequence: number, lastSequence: number, seconds: number, reason: string): Promise<void> {
    const line = `[kura] GAP: sequences ${firstSequence}-${lastSequence} (${seconds.toFixed(1)} s) lost: ${reason}`;
    await this.persist(() => this.deps.captures.recordGap(this.id, { firstSequence, lastSequence, seconds, reason }, [line]));
    this.nextSequence = lastSequence + 1;
  }

  /** Why recording must stop now (an admin asked, a ceiling reached, the disk nearly full), else null. */
  private async limitReached(): Promise<EndReason | null> {
    const { limits } = this.deps;
    if (this.stopRequested) return 'cancelled';
    if (this.totalSeconds >= limits.maxSeconds) return 'duration_limit';
    if (this.totalBytes >= limits.maxBytes) return 'size_limit';
    const free = await this.deps.freeBytes(path.dirname(this.deps.spool.chunkPath(this.id, 1, 0)));
    if (free < limits.minFreeBytes) return 'disk_full';
    return null;
  }

  private async finish(reason: EndReason, why?: string): Promise<EndReason> {
    if (why !== undefined) await this.log(why);
    await this.log(`capture ended (${reason}): ${this.totalSeconds.toFixed(1)} s, ${this.totalBytes} bytes in ${this.writer.part} part(s)`);
    return reason;
  }

  private checkStillOurs(): void {
    if (this.signal.aborted) throw this.signal.reason ?? new Error('capture aborted');
    if (this.leaseLost) throw new LeaseLost(`another worker took over the capture of ${this.id}`);
  }
}
