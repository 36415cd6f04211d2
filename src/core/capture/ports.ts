import type { ByteSource, ObjectWriter, StoredObject } from '../archive/ports.js';
import type { AudioLane, FragmentedStream } from '../sources/ports.js';
import type { CaptureState } from './capture-lifecycle.js';
import type { AdBreak, Capture, CapturePart, ChunkSpan, EndReason, FragmentFormatIds, Gap, RecordedSegment, SegmentSpan, StoredChunk } from './capture.js';

/**
 * Capture progress in the database, as the ports its users need: a use case or adapter names
 * only the ones it calls (`captures: CaptureLease & EncoderLog`); one repository implements all.
 */

/** Which worker holds a capture: taken, renewed, given up, and found abandoned. */
export interface CaptureLease {
  /** Creates or takes over the capture for `workerId` unless another live worker holds it; null then. */
  claim(livestreamId: string, workerId: string, staleAfterSeconds: number): Promise<Capture | null>;
  /** Takes an ended capture's lease to finalize it, unless another live worker holds it; null then. */
  claimFinalize(livestreamId: string, workerId: string, staleAfterSeconds: number): Promise<Capture | null>;
  /** Renews the lease: `lost` when another worker took the capture over, `stop` when an admin asked to stop it. */
  heartbeat(livestreamId: string, workerId: string): Promise<'held' | 'lost' | 'stop'>;
  /** Gives the lease up (graceful shutdown), so another worker may take over at once. */
  release(livestreamId: string, workerId: string): Promise<void>;
  /**
   * Captures of live records, being recorded or waiting to be finalized, and the chats of those
   * being recorded (`chat`): those whose worker stopped renewing its lease for `staleAfterSeconds`, and the milliseconds until the next of the
   * others would be (null when there is none).
   */
  leases(
    staleAfterSeconds: number,
  ): Promise<{ stale: Array<{ livestreamId: string; state: Exclude<CaptureState, 'finalized'> | 'chat' }>; nextStaleInMs: number | null }>;
}

/** The capture's own state: its playlist, a stop asked for, its end, and its finalize. */
export interface CaptureStates {
  get(livestreamId: string): Promise<Capture | null>;
  /** Stores the media playlist the capture records; with `audio`, the renditions recorded beside it too (before its first segment is stored). */
  setPlaylist(livestreamId: string, playlistUrl: string, audio?: readonly AudioLane[]): Promise<void>;
  /** Makes the capture one of the source's fragments, in these formats (before its first fragment is stored); null makes it one of a playlist. */
  setFragmentFormats(livestreamId: string, formats: FragmentFormatIds | null): Promise<void>;
  /** Asks the worker recording a capture to stop (`reason`: who asked and why, `local/alice (too loud)`); false unless it is capturing. */
  requestStop(livestreamId: string, reason: string): Promise<boolean>;
  end(livestreamId: string, reason: string): Promise<void>;
  markFinalized(livestreamId: string): Promise<void>;
  /** A kept capture's stream cannot go on any more (`let_go`): it is finalized, its chunks to be deleted; false when it was not kept. */
  letGo(livestreamId: string): Promise<boolean>;
  /** Deletes a capture that stored no segment (its log stays), so the record can be recorded afresh; false when it holds some. */
  forget(livestreamId: string): Promise<boolean>;
  /** The capture in progress that started last, if any. */
  latestRunning(): Promise<string | null>;
}

/** What a capture recorded, as readers see it: its parts, their segments and the holes in them. */
export interface PartLog {
  parts(livestreamId: string): Promise<CapturePart[]>;
  gaps(livestreamId: string): Promise<Gap[]>;
  /** The ad breaks cut from it, in sequence order. */
  adBreaks(livestreamId: string): Promise<AdBreak[]>;
  /** The recorded segments from `sequence` on, in sequence order. */
  segmentsFrom(livestreamId: string, sequence: number): Promise<RecordedSegment[]>;
  /** One recorded segment with the part offset its bytes start at; null when it is not recorded. */
  segment(livestreamId: string, sequence: number): Promise<SegmentSpan | null>;
}

/** The recorder's progress, segment by segment, and where it resumes. */
export interface SegmentLog {
  startPart(livestreamId: string, part: number): Promise<void>;
  /** Records a stored segment, advances `nextSequence` and appends `log`, in one statement. */
  recordSegment(livestreamId: string, segment: RecordedSegment, log: readonly string[]): Promise<void>;
  /** Records lost sequences, advances `nextSequence` past them and appends `log`, in one statement. */
  recordGap(livestreamId: string, gap: Gap, log: readonly string[]): Promise<void>;
  /** Records ad segments cut (one break with an ad run just before it), advances `nextSequence` past them and appends `log`, in one statement. */
  recordAdBreak(livestreamId: string, cut: Omit<AdBreak, 'atSeconds'>, log: readonly string[]): Promise<void>;
  /**
   * Forgets segments (and gaps) from `sequence` on, whose bytes are lost, so they are fetched
   * again while the source still lists them; the capture continues in `part`.
   */
  rewind(livestreamId: string, sequence: number, part: number): Promise<void>;
  lastSegmentOfPart(livestreamId: string, part: number): Promise<RecordedSegment | null>;
  /** The first segment of `part` whose bytes reach past `offset`. */
  firstSegmentPast(livestreamId: string, part: number, offset: number): Promise<RecordedSegment | null>;
}

/** The chunks of a capture's parts stored in the archive store. */
export interface ChunkLog {
  /** Notes a chunk stored in the archive store, if `workerId` still holds the capture; false otherwise. */
  recordChunk(livestreamId: string, workerId: string, chunk: StoredChunk): Promise<boolean>;
  /** Stored chunks in byte order (part, then offset). */
  chunks(livestreamId: string): Promise<StoredChunk[]>;
}

/** The recent frame of a capture being recorded (see refresh-live-frame.ts). */
export interface FrameLog {
  /** Notes that `workerId` stored a recent frame at `at`, if it still records the capture; false otherwise. */
  frameStored(livestreamId: string, workerId: string, at: Date): Promise<boolean>;
}

/** Tells the worker recording a capture, in whichever process, that someone asked for its recent frame (see frame-requests.ts). */
export interface FrameRequestSignal {
  looked(livestreamId: string): Promise<void>;
}

/** The capture's log, as /api/logz and the archive's log file show it. */
export interface EncoderLog {
  appendLog(livestreamId: string, lines: readonly string[]): Promise<void>;
  readLog(livestreamId: string): Promise<string>;
}

/**
 * What a finalized capture keeps (decision 0112): one summary of its parts instead of a row a
 * segment, and its chat's 0 s instead of a row a message once the chat file stored beside the
 * archive holds them. `parts` reads the summary; the chat is read from the file.
 */
export interface CaptureCompaction {
  /** Compacts a finalized capture; false when it is not finalized (a kept one keeps its segments to go on) or was compacted before. */
  compact(livestreamId: string): Promise<boolean>;
  /** Compacts up to `batch` finalized captures not compacted yet (finalized before there were summaries, or a finalize stopped in between); answers how many. */
  compactLeftovers(batch: number): Promise<number>;
}

/** Every capture port: what the repository implements and the composition root hands out. */
export interface CaptureRepo extends CaptureLease, CaptureStates, PartLog, SegmentLog, ChunkLog, EncoderLog, CaptureCompaction {}

/** A local chunk as the spool lists it: its file, holding bytes of a part from `startOffset` on, not yet in the archive store. */
export interface LocalChunk {
  part: number;
  startOffset: number;
  path: string;
}

/** Stores what a record captured beside its video, once the capture ended: the live chat (core/chat implements it). */
export interface ChatArchive {
  /** Stores the record's chat beside its archive, waiting up to `waitMs` for its capture to end; the messages stored, or null when the stream has no chat. */
  store(record: { id: string; title: string }, waitMs: number): Promise<number | null>;
}

/** A local chunk with the end its file reaches now (its size from `startOffset`): complete once sealed, growing while written. */
export type SizedLocalChunk = LocalChunk & ChunkSpan;

/** Local working space of captures: local chunks not yet uploaded, and finalize's work files. */
export interface Spool {
  chunkPath(livestreamId: string, part: number, startOffset: number): string;
  /** The local chunks of a capture on this disk, by part and offset. */
  localChunks(livestreamId: string): Promise<LocalChunk[]>;
  workPath(livestreamId: string, name: string): string;
  /** Writes a working file of the capture; returns its path. */
  writeFile(livestreamId: string, name: string, content: Buffer | string): Promise<string>;
  /** Writes a working file of the capture gzip-compressed, from text as it comes; returns its path. */
  writeGzip(livestreamId: string, name: string, content: AsyncIterable<string>): Promise<string>;
  /** Removes one working file of the capture (none there is fine). */
  removeFile(livestreamId: string, name: string): Promise<void>;
  remove(livestreamId: string): Promise<void>;
}

/**
 * The bytes a capture recorded so far, as this process can read them: the stored chunks, then
 * the local chunks of the worker's spool when it is on this machine (`kura serve`).
 * No copy is made: players read what the capture keeps anyway.
 */
export interface RecordedBytes {
  /** How many bytes of each part, from byte 0, this process can read now (a part it cannot read at all is absent). */
  readable(livestreamId: string): Promise<ReadonlyMap<number, number>>;
  /** Bytes `start` to `end` (inclusive) of `part`; null when this process cannot read all of them. */
  read(livestreamId: string, part: number, range: { start: number; end: number }): Promise<AsyncIterable<Uint8Array> | null>;
}

/**
 * A thumbnail a remux may write in its own run, when it can (its parts and its output local files):
 * a JPEG of a frame of the first part at `atSeconds`, at `output`.
 */
export interface RemuxFrame {
  atSeconds: number;
  output: string;
}

/** What a remux made: ffmpeg's log, the archive's duration and stored object, and whether it wrote the frame it was asked for. */
export interface RemuxedArchive {
  log: string[];
  durationSeconds: number;
  stored: StoredObject;
  frameWritten: boolean;
}

/** ffmpeg and ffprobe: remux only, never re-encode. */
export interface MediaTools {
  /**
   * Joins the parts (MPEG-TS or fragmented MP4) into one faststart MP4 (`-c copy`) written into
   * `output`: whole into its local file, or streamed as ffmpeg writes it, local disk then holding
   * only the part of `workFile` not yet handed on. Returns ffmpeg's log lines, the duration (the
   * `moov`'s, as ffprobe reads it), the stored object, and whether it wrote `frame` (see
   * RemuxFrame). Throws PermanentError (storing nothing) when the result has no duration: no
   * playable media.
   */
  remux(parts: readonly ByteSource[], output: ObjectWriter, workFile: string, frame?: RemuxFrame): Promise<RemuxedArchive>;
  /**
   * Muxes a video track and audio tracks side by side (`-c copy`) into one faststart MP4, as
   * `remux` writes it: the video's streams, then each audio track's audio tagged with its language
   * (null: none), in their order.
   */
  mux(
    tracks: { video: ByteSource; audio: ReadonlyArray<{ source: ByteSource; language: string | null }> },
    output: ObjectWriter,
    workFile: string,
  ): Promise<RemuxedArchive>;
  /**
   * How many audio and video streams ffprobe finds in a part: 0 when it finds none (noise, not
   * media). Rejects when the bytes cannot be read.
   */
  streams(part: ByteSource): Promise<number>;
  /** Grabs one frame as JPEG. `video` is copied whole to local disk unless it lies in local files: give only the bytes the frame needs. */
  thumbnail(video: ByteSource, output: string, atSeconds: number): Promise<void>;
}

/**
 * What the source answers a capture of fragments asking again, for fresh URLs or whether the
 * stream is still on (decision 0088): only `ended` (or `not_live` with a head frozen a while) ends it.
 */
export type Renewal =
  /** Still live: the pinned formats under fresh URLs. */
  | { state: 'live'; stream: FragmentedStream }
  /** The broadcast is over; `stream`: its fragments are still served under these URLs (YouTube's post_live), null: they are not. */
  | { state: 'ended'; stream: FragmentedStream | null; reason: string }
  /** The source says it is not live without saying it ended (YouTube's not_live): an end only once the head stayed frozen a while. */
  | { state: 'not_live'; reason: string }
  /** The source could not say (a failed look, a rate limit, a bot check): asked again later, never an end. */
  | { state: 'unknown'; reason: string }
  /** The source refuses Kura now (members-only or sign-in: the cookies no longer open it). */
  | { state: 'access_lost'; reason: string };

/** Records a live stream's numbered fragments, video and audio side by side, from the first, until it ends (see fragment-tracks.ts). */
export interface FragmentRecorder {
  /**
   * Continues `capture` (as claimed, with its stored progress) until the stream ends; says why.
   * `renew` asks the source for the same formats under fresh URLs (see Renewal).
   */
  record(target: { capture: Capture; stream: FragmentedStream; workerId: string; renew: () => Promise<Renewal> }, signal: AbortSignal): Promise<EndReason>;
}

/**
 * A media playlist to record: its URL, the request headers the source says it answers only with
 * (null: none), and the audio renditions recorded beside it (none: its audio, if any, is in its segments).
 */
export interface PlaylistSource {
  url: string;
  headers: Readonly<Record<string, string>> | null;
  audio: readonly AudioLane[];
}

/** Records a live media playlist into parts until it ends, persisting progress as it goes. */
export interface StreamRecorder {
  /** Continues `capture` (as claimed, with its stored progress) until the stream ends; says why it ended. */
  record(
    target: { capture: Capture; playlist: PlaylistSource; workerId: string; refreshPlaylist?: () => Promise<PlaylistSource | null> },
    signal: AbortSignal,
  ): Promise<EndReason>;
}
