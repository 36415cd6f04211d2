import type { Capture, EndReason } from './capture/capture.js';
import type { LifecycleEvent } from './livestream/lifecycle.js';
import type { Livestream, LivestreamChange, LivestreamInput, Platform } from './livestream/livestream.js';
import type { ObjectMeta } from './archive/object-keys.js';

export type SortOrder = 'asc' | 'desc';

export interface HistoryQuery {
  offset: number;
  limit: number;
  sort: SortOrder;
  /** false: finished records only; true: every record. */
  includeUnfinished: boolean;
}

/** Aggregates maintained in the same transaction as the rows they count. */
export interface GrowthMonth {
  /** `YYYY-MM`, UTC. */
  month: string;
  count: number;
  fileSizeBytes: number;
  lengthSeconds: number;
}

export interface LivestreamTotals {
  /** Every record. */
  all: number;
  finished: number;
  /** Archived and queued records: everything but `failed`. */
  counted: number;
  totalFileSizeBytes: number;
  totalLengthSeconds: number;
  uniqueChannels: number;
}

export interface LivestreamRepo {
  /** Reads one page ordered by scheduled start, ties broken by id. */
  listHistory(query: HistoryQuery, total: number): Promise<Livestream[]>;
  /** Upcoming and live records, soonest first. */
  listQueue(limit: number): Promise<Livestream[]>;
  findById(id: string): Promise<Livestream | null>;
  /** The records of these ids that exist, in no particular order. */
  findManyById(ids: readonly string[]): Promise<Livestream[]>;
  /** An upcoming or live record of this source URL, to join instead of duplicating. */
  findActiveBySource(sourceUrl: string): Promise<Livestream | null>;
  totals(): Promise<LivestreamTotals>;
  /** Finished records per calendar month (UTC) of their scheduled start, oldest month first. */
  growth(): Promise<GrowthMonth[]>;
  /** Inserts or updates records and appends new submitters, all in one transaction. */
  upsertMany(records: readonly LivestreamInput[]): Promise<{ inserted: number; updated: number }>;
  /** Writes what the source says of a record now (schedule, title, channel, thumbnail); never its status. */
  update(id: string, change: DetailsChange): Promise<void>;
  /**
   * Moves a record through the lifecycle: re-reads it under a row lock, applies `event` with
   * `applyEvent` (lifecycle.ts) and writes the result, in one transaction; returns the record as
   * it is now. Throws `livestream_not_found`, `livestream_state_conflict`.
   */
  transition(id: string, event: LifecycleEvent): Promise<Livestream>;
  /** Counts one download of the video. */
  countDownload(id: string): Promise<void>;
}

/** What a source may change of a record outside the lifecycle. */
export type DetailsChange = Pick<LivestreamChange, 'scheduledStart' | 'title' | 'channelName' | 'thumbnailUrl'>;

/** Capture progress in the database, split by what its users need (see capture/ports.ts). */
export type { CaptureLease, CaptureRepo, CaptureStates, ChunkLog, EncoderLog, PartLog, SegmentLog } from './capture/ports.js';

/** Schedules the lifecycle's next steps (pg-boss jobs behind it). */
export interface Scheduler {
  watch(livestreamId: string, at?: Date): Promise<void>;
  capture(livestreamId: string): Promise<void>;
  finalize(livestreamId: string): Promise<void>;
}

/** A record the sweep found with nothing behind its state. */
export interface Unattended {
  id: string;
  /** The capture's state; null when the record has none. */
  capture: 'capturing' | 'ended' | 'finalized' | null;
}

/** What the lifecycle sweep reads, and the repairs it counts. */
export interface SweepRepo {
  /** Upcoming records scheduled to start before `cutoff`, oldest first. */
  upcomingScheduledBefore(cutoff: Date, limit: number): Promise<string[]>;
  /** Upcoming records scheduled at or after `cutoff`, soonest first. */
  upcomingScheduledFrom(cutoff: Date, limit: number): Promise<string[]>;
  /** Live records whose capture lease was last renewed more than `staleSeconds` ago (or that have no capture). */
  liveWithoutLease(staleSeconds: number, limit: number): Promise<Unattended[]>;
  /** Adds one repair of `action` to the counts /metrics shows. */
  countRepair(action: SweepAction): Promise<void>;
  /** Repairs made so far, by action, across every process. */
  repairCounts(): Promise<Partial<Record<SweepAction, number>>>;
}

/** What the sweep did to a record: watched it again, resumed its capture or finalize, or failed it. */
export type SweepAction = 'watch' | 'capture' | 'finalize' | 'fail';

/** Which records have a job waiting or running (the sweep repairs those that have none). */
export interface PendingJobs {
  /** The ids among `livestreamIds` with a `job` created, waiting to retry, or running. */
  pending(job: 'watch' | 'capture' | 'finalize', livestreamIds: readonly string[]): Promise<Set<string>>;
}

/** Committed changes to records, from any process; read caches depend on it. */
export interface ChangeFeed {
  /** False while changes could be missed: caches must be bypassed then. */
  readonly connected: boolean;
  onChange(listener: () => void): void;
}

/** Bytes read on demand, in ranges: a capture part assembled from its stored chunks. */
export interface ByteSource {
  bytes: number;
  /** Bytes `start` to `end`, inclusive. */
  read(range: { start: number; end: number }): AsyncIterable<Uint8Array>;
}

export interface StoredObject {
  bytes: number;
  sha256: string;
}

/** ffmpeg and ffprobe: remux only, never re-encode. */
export interface MediaTools {
  /**
   * Joins the parts (MPEG-TS or fragmented MP4) into one faststart MP4 (`-c copy`), streamed into
   * `output` as ffmpeg writes it: local disk holds only the part of `workFile` not yet handed on.
   * Returns ffmpeg's log lines, the duration ffprobe measures and the stored object. Throws
   * PermanentError (storing nothing) when the result has no duration: no playable media.
   */
  remux(parts: readonly ByteSource[], output: HeadLastWriter, workFile: string): Promise<{ log: string[]; durationSeconds: number; stored: StoredObject }>;
  /**
   * How many audio and video streams ffprobe finds in a part: 0 when it finds none (noise, not
   * media). Rejects when the bytes cannot be read.
   */
  streams(part: ByteSource): Promise<number>;
  /** Grabs one frame as JPEG. */
  thumbnail(video: ByteSource, output: string, atSeconds: number): Promise<void>;
}

/**
 * An object written in one pass whose first bytes are known last: a faststart MP4, whose `moov`
 * (in front) describes the media after it. Nothing of it is visible until `complete`.
 */
export interface HeadLastWriter {
  /** Appends media bytes; resolves once they may be dropped locally (stored, or held by the writer). */
  writeMedia(bytes: Buffer): Promise<void>;
  /** Puts `head` in front of the media and makes the object appear whole; measures what was stored. */
  complete(head: Buffer): Promise<StoredObject>;
  /** Gives up, leaving nothing behind (no object, no billed parts). */
  abort(): Promise<void>;
}

/** Where archives live (fs or s3). */
export interface ArchiveStore {
  /** Stores a local file under `key` (whole or not at all); returns the stored size and sha256. */
  put(key: string, localPath: string, meta: ObjectMeta): Promise<StoredObject>;
  /** Starts an object whose head is written last (see HeadLastWriter). */
  beginHeadLast(key: string, meta: ObjectMeta): Promise<HeadLastWriter>;
  /** A URL clients fetch the object from directly (s3: presigned or public), or null when Kura serves it. */
  directUrl(key: string, meta: ObjectMeta): Promise<string | null>;
  stat(key: string): Promise<{ bytes: number } | null>;
  /** The object's bytes, optionally an inclusive byte range. */
  read(key: string, range?: { start: number; end: number }): Promise<NodeJS.ReadableStream>;
  delete(key: string): Promise<void>;
}

/** A local file holding bytes of a part from `startOffset` on, not yet in the archive store. */
export interface LocalChunk {
  part: number;
  startOffset: number;
  path: string;
}

/** Local working space of captures: chunks not yet uploaded, and finalize's work files. */
export interface Spool {
  chunkPath(livestreamId: string, part: number, startOffset: number): string;
  /** The chunk files of a capture on this disk, by part and offset. */
  localChunks(livestreamId: string): Promise<LocalChunk[]>;
  workPath(livestreamId: string, name: string): string;
  /** Writes a working file of the capture; returns its path. */
  writeFile(livestreamId: string, name: string, content: Buffer | string): Promise<string>;
  remove(livestreamId: string): Promise<void>;
}

/** What a source says about a stream's identity and schedule (YouTube knows them; HLS does not). */
export interface StreamDetails {
  title: string;
  channelName: string;
  channelId: string;
  /** When the stream is (or was) scheduled to start; null when the source does not say. */
  scheduledStart: Date | null;
  thumbnailUrl: string | null;
}

/** What a source says about a stream right now. */
export interface SourceStatus {
  /**
   * `refused`: Kura will not fetch it (a private address without KURA_ALLOW_PRIVATE_SOURCES);
   * `gone`: the source says the video was removed or made private.
   */
  state: 'live' | 'not_yet' | 'ended' | 'refused' | 'gone';
  /** The media playlist to record, when live. */
  playlistUrl?: string;
  reason?: string;
  /** Fresh details, when the source has them (a moved schedule, a renamed stream). */
  details?: StreamDetails;
}

/** A submitted URL as a source sees it. */
export type Inspection =
  | { kind: 'rejected'; reason: string }
  | {
      kind: 'accepted';
      platform: Platform;
      /** The record id the source dictates (a YouTube video id), or null for a generated one. */
      id: string | null;
      /** The one form of the URL records are kept under. */
      canonicalUrl: string;
      details: StreamDetails | null;
    };

/** A quality a stream can be recorded in: its code (`720p`, or `best`) and frame size. */
export interface Quality {
  code: string;
  /** `1280x720`, or words when the source does not say yet. */
  resolution: string;
  /** The one recorded when no quality is asked for. */
  best: boolean;
}

export interface StreamSource {
  /** Whether the URL is this source's to judge (by its form alone, without fetching). */
  recognises(url: string): boolean;
  /** Whether the URL names a stream this source can record that is upcoming or live. */
  inspect(url: string): Promise<Inspection>;
  check(sourceUrl: string, quality: string | null): Promise<SourceStatus>;
  /** The qualities the stream offers now, best first; rejects (AppError) when the URL is not a stream. */
  qualities(url: string): Promise<Quality[]>;
}

/** Records a live media playlist into part files until it ends, persisting progress as it goes. */
export interface StreamRecorder {
  /** Continues `capture` (as claimed, with its stored progress) until the stream ends; says why it ended. */
  record(
    target: { capture: Capture; playlistUrl: string; workerId: string; refreshPlaylist?: () => Promise<string | null> },
    signal: AbortSignal,
  ): Promise<EndReason>;
}
