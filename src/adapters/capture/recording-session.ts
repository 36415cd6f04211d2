import path from 'node:path';
import type { Capture, EndReason } from '../../core/capture/capture.js';
import { keepLease } from '../../core/capture/lease.js';
import { redactUrlsIn } from '../../core/sources/public-url.js';
import { ChunkUploader } from './chunk-uploader.js';
import { ChunkWriter } from './chunk-writer.js';
import { untilDatabaseAnswers } from './database-wait.js';
import type { RecorderDeps } from './recorder-deps.js';
import { findResumePoint } from './resume-point.js';

export class LeaseLost extends Error {}

/** A stored piece of the source, as the capture records it: its sequence number and its seconds of media. */
export interface StoredPiece {
  sequence: number;
  durationSeconds: number;
}

/**
 * One worker's recording of a capture, whatever the protocol (an HLS playlist, a source's
 * numbered fragments): each piece's bytes are appended to the current chunk of its part (fsync),
 * then recorded in PostgreSQL, so a restarted capture continues at the next missing one. Full
 * chunks are uploaded to the archive store as the capture goes, so any worker can resume it and
 * local disk stays bounded; on shutdown what is local is handed over. The protocol's own loop is
 * `recordUntilEnd`.
 */
export abstract class RecordingSession {
  protected readonly writer: ChunkWriter;
  private readonly uploader: ChunkUploader;
  /** The first sequence neither stored nor recorded as lost; null before the first one is known. */
  protected nextSequence: number | null = null;
  protected totalBytes = 0;
  protected totalSeconds = 0;
  private leaseLost = false;
  /** Set when an admin asks to stop; `wake` cuts a wait short then. */
  private stopRequested = false;
  private readonly wake = new AbortController();
  /** Ends a wait between two looks at the source: shutdown or a stop (one signal for the capture, not one per wait). */
  protected readonly pollWait: AbortSignal;
  /** The capture's spool folder, whose free space `limitReached` reads before every segment and poll. */
  private readonly spoolDir: string;

  constructor(
    protected readonly deps: RecorderDeps,
    protected readonly id: string,
    private readonly workerId: string,
    protected readonly signal: AbortSignal,
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
    this.spoolDir = path.dirname(deps.spool.chunkPath(id, 1, 0));
  }

  /** Records from where the stored progress ends until the stream ends; says why it ended. */
  protected abstract recordUntilEnd(): Promise<EndReason>;

  /** The encoder log is public (`/api/logz`, the log download): the URLs in it are written redacted (a signed or tokened URL's query). */
  protected log(line: string): Promise<void> {
    return this.persist(() => this.deps.captures.appendLog(this.id, [`[kura] ${redactUrlsIn(line)}`]));
  }

  /** Progress waits for PostgreSQL while it is away (see untilDatabaseAnswers), then the capture goes on. */
  protected persist<T>(work: () => Promise<T>): Promise<T> {
    return untilDatabaseAnswers(work, this.signal, (awayMs) => {
      void this.deps.captures
        .appendLog(this.id, [`[kura] PostgreSQL could not be reached for ${(awayMs / 1000).toFixed(1)} s; recording paused and went on`])
        .catch(() => undefined);
    });
  }

  async run(capture: Capture): Promise<EndReason> {
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
      const reason = await this.recordUntilEnd();
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

  /** Records the piece the writer has taken, once it is on disk. */
  protected async append(piece: StoredPiece): Promise<void> {
    const length = await this.writer.commit(); // on disk before PostgreSQL says it is stored
    this.totalBytes += length;
    this.deps.recorded?.(length);
    this.totalSeconds += piece.durationSeconds;
    const kbps = (length * 8) / 1000 / Math.max(piece.durationSeconds, 0.001);
    const stored = { sequence: piece.sequence, part: this.writer.part, endOffset: this.writer.offset, durationSeconds: piece.durationSeconds };
    const rate = piece.durationSeconds > 0 ? `, ${kbps.toFixed(0)} kbit/s` : '';
    const line = `[kura] segment ${piece.sequence} stored: ${piece.durationSeconds.toFixed(3)} s, ${length} bytes${rate}`;
    await this.persist(() => this.deps.captures.recordSegment(this.id, stored, [line]));
    this.nextSequence = piece.sequence + 1;
    await this.writer.sealIfFull(piece.durationSeconds);
  }

  protected async startNextPart(why: string): Promise<void> {
    await this.writer.nextPart();
    await this.persist(() => this.deps.captures.startPart(this.id, this.writer.part));
    await this.log(`${why}: starting part ${this.writer.part}`);
  }

  protected async recordGap(firstSequence: number, lastSequence: number, seconds: number, reason: string): Promise<void> {
    const line = `[kura] GAP: sequences ${firstSequence}-${lastSequence} (${seconds.toFixed(1)} s) lost: ${reason}`;
    await this.persist(() => this.deps.captures.recordGap(this.id, { firstSequence, lastSequence, seconds, reason }, [line]));
    this.nextSequence = lastSequence + 1;
  }

  /** Cuts a run of ads the source stitched in (not fetched, not stored, no gap): the recording goes on after them. */
  protected async recordAdBreak(firstSequence: number, lastSequence: number, seconds: number): Promise<void> {
    const line = `[kura] ad cut: sequences ${firstSequence}-${lastSequence} (${seconds.toFixed(1)} s) are ads the source stitched in`;
    await this.persist(() => this.deps.captures.recordAdBreak(this.id, { firstSequence, lastSequence, seconds }, [line]));
    this.nextSequence = lastSequence + 1;
  }

  /** Why recording must stop now (an admin asked, a ceiling reached, the disk nearly full), else null. */
  protected async limitReached(): Promise<EndReason | null> {
    const { limits } = this.deps;
    if (this.stopRequested) return 'cancelled';
    if (this.totalSeconds >= limits.maxSeconds) return 'duration_limit';
    if (this.totalBytes >= limits.maxBytes) return 'size_limit';
    const free = await this.deps.freeBytes(this.spoolDir);
    if (free < limits.minFreeBytes) return 'disk_full';
    return null;
  }

  protected async finish(reason: EndReason, why?: string): Promise<EndReason> {
    if (why !== undefined) await this.log(why);
    await this.log(`capture ended (${reason}): ${this.totalSeconds.toFixed(1)} s, ${this.totalBytes} bytes in ${this.writer.part} part(s)`);
    return reason;
  }

  protected checkStillOurs(): void {
    if (this.signal.aborted) throw this.signal.reason ?? new Error('capture aborted');
    if (this.leaseLost) throw new LeaseLost(`another worker took over the capture of ${this.id}`);
  }
}
