// Decisions: docs/decisions/0037-how-a-capture-ends.md
import type { CaptureState } from './capture-lifecycle.js';
import type { AudioLane } from '../sources/ports.js';

/** The adaptive formats a capture records fragment by fragment (their ids, e.g. YouTube itags `299` and `140`), and the seconds in each fragment. */
export interface FragmentFormatIds {
  video: string;
  audio: string;
  fragmentSeconds: number;
  /** The two formats’ codecs as the source names them, video first (`vp9,opus`): HLS’s CODECS, and how the page’s player opens its buffers; absent when not known. */
  codecs?: string;
}

/** A capture's progress as stored, so any worker can resume it. */
export interface Capture {
  livestreamId: string;
  playlistUrl: string | null;
  /** Set for a capture of a source's fragments (see fragment-tracks.ts); null for one of an HLS playlist. */
  fragmentFormats: FragmentFormatIds | null;
  /** The audio renditions a capture of an HLS playlist records beside its video (see playlist-lanes.ts); empty when its audio is in its segments. */
  audioLanes: readonly AudioLane[];
  /** See the capture lifecycle (capture-lifecycle.ts). */
  state: CaptureState;
  endReason: string | null;
  /** An admin's reason to stop the capture in progress; null unless one asked. */
  stopRequested: string | null;
  workerId: string | null;
  heartbeatAt: Date | null;
  /** First media sequence neither stored nor recorded as lost; null before the first playlist. */
  nextSequence: number | null;
  currentPart: number;
  startedAt: Date;
  endedAt: Date | null;
  /** When the worker recording it last stored a frame of a recent segment (see refresh-live-frame.ts); null before the first. */
  frameAt: Date | null;
  /** A `kept` capture's: until when its chunks are kept, and its stream looked at, for it to go on (decision 0090); null in any other state. */
  keptUntil: Date | null;
}

/** A source segment the capture recorded: its bytes end its part at `endOffset` when it is recorded. */
export interface RecordedSegment {
  sequence: number;
  part: number;
  /** Bytes of the part up to and including this segment. */
  endOffset: number;
  durationSeconds: number;
}

/** A recorded segment and where its bytes are: part offsets `startOffset` to `endOffset` (exclusive). */
export interface SegmentSpan extends RecordedSegment {
  startOffset: number;
}

/** Media sequences that were lost: gone from the source before they could be fetched. */
export interface Gap {
  firstSequence: number;
  lastSequence: number;
  seconds: number;
  reason: string;
  /** Where it lies on the recording's timeline, once its finalized capture is compacted (null before, and before the first segment). */
  atSeconds?: number | null;
}

/**
 * A run of ad segments the source stitched into its stream (Twitch's), cut from the recording:
 * not a hole in the stream (a capture with breaks but no gap is complete).
 */
export interface AdBreak {
  firstSequence: number;
  lastSequence: number;
  seconds: number;
  /** Where the cut lies on the recording's timeline, as a gap's `atSeconds` counts; null before the first recorded segment (a pre-roll). */
  atSeconds?: number | null;
}

/** Where a chunk is in its part: bytes [startOffset, endOffset) of part `part` (see the glossary in coverage.ts). */
export interface ChunkSpan {
  part: number;
  startOffset: number;
  endOffset: number;
}

/** A chunk in the archive store, noted in capture_chunks: `key` is its object. */
export interface StoredChunk extends ChunkSpan {
  key: string;
}

/** A part as its recorded segments make it: `bytes` long (the last segment's end), `seconds` of media. */
export interface CapturePart {
  part: number;
  bytes: number;
  segments: number;
  seconds: number;
}

/** Why a capture ended; the words appear in the encoder log and the record. */
export type EndReason =
  | 'endlist'
  | 'offline'
  | 'restarted'
  | 'idle'
  | 'not_live'
  | 'source_unreachable'
  | 'duration_limit'
  | 'size_limit'
  | 'disk_full'
  | 'unsupported_encryption'
  | 'access_lost'
  | 'cancelled'
  | 'failed';

const END_REASONS: Record<EndReason, string> = {
  endlist: 'the stream ended',
  offline: 'the source went offline (its playlist answered 404)',
  restarted: 'the source started a new broadcast',
  idle: 'the stream stopped sending segments',
  not_live: 'the source stopped saying the stream is live, and no fragment came for a while',
  source_unreachable: 'the source stopped answering',
  duration_limit: 'the capture reached its duration ceiling',
  size_limit: 'the capture reached its size ceiling',
  disk_full: 'the disk had less free space than the operator keeps free',
  unsupported_encryption: 'the stream is encrypted in a way Kura cannot undo (SAMPLE-AES or DRM)',
  access_lost: 'the source refused Kura in the middle of the stream (members-only or sign-in: the cookies no longer open it)',
  cancelled: 'an admin stopped the capture',
  failed: 'Kura gave up on the capture (the record says why)',
};

/** Why a capture ended, in words, with the code after it: "the stream ended (endlist)". */
export function describeEndReason(reason: string | null): string {
  if (reason === null) return 'no segment was listed';
  const words = END_REASONS[reason as EndReason] as string | undefined;
  return words === undefined ? reason : `${words} (${reason})`;
}

/**
 * Ends after which the stream may go on (decision 0090): a capture of fragments whose head froze
 * while the source still said live (`idle`), or said neither live nor ended (`not_live`). Their
 * chunks are kept after finalize, and Kura looks again, to go on in the same record.
 */
export function mayGoOn(capture: Pick<Capture, 'fragmentFormats' | 'endReason'>): boolean {
  return capture.fragmentFormats !== null && (capture.endReason === 'idle' || capture.endReason === 'not_live');
}
