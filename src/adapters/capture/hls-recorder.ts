import { mkdir, open, stat, truncate, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Capture, EndReason } from '../../core/capture.js';
import type { CaptureRepo, Spool, StreamRecorder } from '../../core/ports.js';
import { FetchError, type Fetcher } from '../sources/http-fetch.js';
import { loadPlaylist, type MediaPlaylist, type MediaSegment } from '../sources/hls-playlist.js';

export interface RecorderLimits {
  /** End when the playlist answers but lists no new segment for this long. */
  idleSeconds: number;
  /** End when the playlist does not answer at all for this long. */
  unreachableSeconds: number;
  /** Stop recording past this much media (seconds) or these many bytes. */
  maxSeconds: number;
  maxBytes: number;
  /** Stop cleanly (keeping what was captured) when the spool's disk has less free space. */
  minFreeBytes: number;
  heartbeatSeconds: number;
}

export interface RecorderDeps {
  captures: CaptureRepo;
  fetcher: Fetcher;
  spool: Spool;
  freeBytes: (dir: string) => Promise<number>;
  limits: RecorderLimits;
}

/** Attempts for one segment before it is recorded as lost (while it stays in the window). */
const SEGMENT_ATTEMPTS = 8;
const BACKOFF_MS = [250, 500, 1000, 2000, 2000, 3000, 4000, 5000];

class LeaseLost extends Error {}

/**
 * Our own HLS poller: starts at the earliest segment of the window, polls as the HLS spec says,
 * appends each segment to the current part file (fsync), then records it in PostgreSQL, so a
 * restarted capture continues at the next missing segment. ffmpeg is not involved until finalize.
 */
export function createHlsRecorder(deps: RecorderDeps): StreamRecorder {
  return {
    async record(target, signal) {
      const session = new RecordingSession(deps, target.capture.livestreamId, target.workerId, signal);
      return session.run(target.capture, target.playlistUrl);
    },
  };
}

class RecordingSession {
  private part = 1;
  private file: FileHandle | null = null;
  private offset = 0;
  private nextSequence: number | null = null;
  private totalBytes = 0;
  private totalSeconds = 0;
  private leaseLost = false;

  constructor(
    private readonly deps: RecorderDeps,
    private readonly id: string,
    private readonly workerId: string,
    private readonly signal: AbortSignal,
  ) {}

  private log(line: string): Promise<void> {
    return this.deps.captures.appendLog(this.id, [`[kura] ${line}`]);
  }

  async run(capture: Capture, playlistUrl: string): Promise<EndReason> {
    const heartbeat = setInterval(() => {
      this.deps.captures.heartbeat(this.id, this.workerId).then(
        (held) => {
          if (!held) this.leaseLost = true;
        },
        () => undefined, // a missed beat is retried at the next interval
      );
    }, this.deps.limits.heartbeatSeconds * 1000);
    try {
      await this.resume(capture);
      return await this.poll(playlistUrl);
    } finally {
      clearInterval(heartbeat);
      await this.file?.close();
    }
  }

  /** Continues where the stored progress ends: bytes past the last recorded segment are cut. */
  private async resume(capture: Capture): Promise<void> {
    this.part = capture.currentPart;
    this.nextSequence = capture.nextSequence;
    for (const part of await this.deps.captures.parts(this.id)) {
      this.totalBytes += part.bytes;
      this.totalSeconds += part.seconds;
    }
    const last = await this.deps.captures.lastSegmentOfPart(this.id, this.part);
    const partPath = this.deps.spool.partPath(this.id, this.part);
    await mkdir(path.dirname(partPath), { recursive: true });
    const existing = await stat(partPath).catch(() => null);
    this.offset = last?.endOffset ?? 0;
    if (existing !== null && existing.size !== this.offset) {
      await truncate(partPath, this.offset);
      await this.log(`resuming part ${this.part}: cut ${existing.size - this.offset} bytes written after the last recorded segment`);
    } else if (this.nextSequence !== null) {
      await this.log(`resuming at sequence ${this.nextSequence} in part ${this.part}`);
    }
    this.file = await open(partPath, 'a');
  }

  private async poll(playlistUrl: string): Promise<EndReason> {
    const { limits } = this.deps;
    let lastNewSegmentAt = Date.now();
    let lastAnswerAt = Date.now();
    let previousText = '';
    let targetSeconds = 2;
    for (;;) {
      this.checkStillOurs();
      let playlist: MediaPlaylist | null = null;
      try {
        const loaded = await loadPlaylist(playlistUrl, this.deps.fetcher);
        if (loaded.kind !== 'media') throw new FetchError(`${playlistUrl}: expected a media playlist`, 0);
        playlist = loaded;
        lastAnswerAt = Date.now();
      } catch (error) {
        await this.log(`playlist fetch failed: ${(error as Error).message}`);
        if (Date.now() - lastAnswerAt > limits.unreachableSeconds * 1000) return this.finish('source_unreachable');
      }
      if (playlist !== null) {
        targetSeconds = Math.max(0.5, playlist.targetDurationSeconds || targetSeconds);
        const listsNew = this.nextSequence === null || playlist.segments.some((seg) => seg.sequence >= (this.nextSequence as number));
        await this.storeNewSegments(playlist, playlistUrl);
        // measured from when the new segments were handled: time spent retrying is not idleness
        if (listsNew) lastNewSegmentAt = Date.now();
        const limit = await this.limitReached();
        if (limit !== null) return this.finish(limit);
        if (playlist.ended) return this.finish('endlist');
        if (Date.now() - lastNewSegmentAt > limits.idleSeconds * 1000) return this.finish('idle');
      }
      const changed = playlist !== null && playlist.text !== previousText;
      previousText = playlist?.text ?? previousText;
      // HLS §6.3.4: wait one target duration after a change, half of it when nothing changed
      await sleep((changed ? targetSeconds : targetSeconds / 2) * 1000, this.signal);
    }
  }

  /** Stores every listed segment from `nextSequence` on, in order (or records it as lost). */
  private async storeNewSegments(playlist: MediaPlaylist, playlistUrl: string): Promise<void> {
    const first = playlist.segments[0];
    if (first === undefined) return;
    if (this.nextSequence === null) {
      this.nextSequence = first.sequence; // the earliest segment the window offers, not the live edge
      await this.log(`recording ${playlistUrl} from sequence ${first.sequence} (${playlist.segments.length} segments in the window)`);
    }
    if (first.sequence > this.nextSequence) {
      const missing = first.sequence - this.nextSequence;
      await this.recordGap(this.nextSequence, first.sequence - 1, missing * playlist.targetDurationSeconds, 'left the window before it could be fetched');
    }
    for (const segment of playlist.segments) {
      if (segment.sequence < (this.nextSequence ?? 0)) continue;
      this.checkStillOurs();
      if (segment.discontinuity && this.offset > 0) await this.startNextPart(segment.sequence);
      const bytes = await this.fetchSegment(segment, playlistUrl);
      if (bytes === null) continue;
      await this.append(segment, bytes);
    }
  }

  /** Fetches with backoff while the segment stays listed; null (and a gap) when it is lost. */
  private async fetchSegment(segment: MediaSegment, playlistUrl: string): Promise<Buffer | null> {
    let lastError = '';
    for (let attempt = 1; attempt <= SEGMENT_ATTEMPTS; attempt++) {
      try {
        return await this.deps.fetcher.bytes(segment.url);
      } catch (error) {
        lastError = (error as Error).message;
        await this.log(`segment ${segment.sequence} attempt ${attempt} failed: ${lastError}`);
      }
      await sleep(BACKOFF_MS[attempt - 1] ?? 5000, this.signal);
      if (!(await this.stillListed(segment.sequence, playlistUrl))) break;
    }
    await this.recordGap(segment.sequence, segment.sequence, segment.durationSeconds, `could not be fetched (${lastError})`);
    return null;
  }

  private async stillListed(sequence: number, playlistUrl: string): Promise<boolean> {
    try {
      const playlist = await loadPlaylist(playlistUrl, this.deps.fetcher);
      return playlist.kind === 'media' && playlist.segments.some((s) => s.sequence === sequence);
    } catch {
      return true; // the playlist itself failing says nothing about the segment
    }
  }

  private async append(segment: MediaSegment, bytes: Buffer): Promise<void> {
    const file = this.file as FileHandle;
    await file.write(bytes, 0, bytes.length, this.offset);
    await file.sync(); // on disk before PostgreSQL says it is stored
    this.offset += bytes.length;
    this.totalBytes += bytes.length;
    this.totalSeconds += segment.durationSeconds;
    const kbps = (bytes.length * 8) / 1000 / Math.max(segment.durationSeconds, 0.001);
    await this.deps.captures.recordSegment(
      this.id,
      { sequence: segment.sequence, part: this.part, endOffset: this.offset, durationSeconds: segment.durationSeconds },
      [`[kura] segment ${segment.sequence} stored: ${segment.durationSeconds.toFixed(3)} s, ${bytes.length} bytes, ${kbps.toFixed(0)} kbit/s`],
    );
    this.nextSequence = segment.sequence + 1;
  }

  private async startNextPart(sequence: number): Promise<void> {
    await this.file?.close();
    this.part += 1;
    this.offset = 0;
    await this.deps.captures.startPart(this.id, this.part);
    this.file = await open(this.deps.spool.partPath(this.id, this.part), 'w');
    await this.log(`discontinuity at sequence ${sequence}: starting part ${this.part}`);
  }

  private async recordGap(firstSequence: number, lastSequence: number, seconds: number, reason: string): Promise<void> {
    await this.deps.captures.recordGap(this.id, { firstSequence, lastSequence, seconds, reason }, [
      `[kura] GAP: sequences ${firstSequence}-${lastSequence} (${seconds.toFixed(1)} s) lost: ${reason}`,
    ]);
    this.nextSequence = lastSequence + 1;
  }

  private async limitReached(): Promise<EndReason | null> {
    const { limits } = this.deps;
    if (this.totalSeconds >= limits.maxSeconds) return 'duration_limit';
    if (this.totalBytes >= limits.maxBytes) return 'size_limit';
    const free = await this.deps.freeBytes(path.dirname(this.deps.spool.partPath(this.id, this.part)));
    if (free < limits.minFreeBytes) return 'disk_full';
    return null;
  }

  private async finish(reason: EndReason): Promise<EndReason> {
    await this.log(`capture ended (${reason}): ${this.totalSeconds.toFixed(1)} s, ${this.totalBytes} bytes in ${this.part} part(s)`);
    return reason;
  }

  private checkStillOurs(): void {
    if (this.signal.aborted) throw this.signal.reason ?? new Error('capture aborted');
    if (this.leaseLost) throw new LeaseLost(`another worker took over the capture of ${this.id}`);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
