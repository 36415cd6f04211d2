/** A capture's progress as stored, so any worker can resume it. */
export interface Capture {
  livestreamId: string;
  playlistUrl: string | null;
  state: 'capturing' | 'ended' | 'finalized';
  endReason: string | null;
  workerId: string | null;
  heartbeatAt: Date | null;
  /** First media sequence neither stored nor recorded as lost; null before the first playlist. */
  nextSequence: number | null;
  currentPart: number;
  startedAt: Date;
  endedAt: Date | null;
}

export interface StoredSegment {
  sequence: number;
  part: number;
  /** Bytes of the part file up to and including this segment. */
  endOffset: number;
  durationSeconds: number;
}

/** Media sequences that were lost: gone from the source before they could be fetched. */
export interface Gap {
  firstSequence: number;
  lastSequence: number;
  seconds: number;
  reason: string;
}

export interface CapturePart {
  part: number;
  bytes: number;
  segments: number;
  seconds: number;
}

/** Why a capture ended; the words appear in the encoder log and the record. */
export type EndReason = 'endlist' | 'idle' | 'source_unreachable' | 'duration_limit' | 'size_limit' | 'disk_full' | 'unsupported_encryption';
