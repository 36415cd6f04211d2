// Decisions: docs/decisions/0079-recording-progress.md
import type { Capture, CapturePart, Gap, RecordedSegment } from './capture.js';
import { isRecording } from './capture-lifecycle.js';
import { trackOf } from './fragment-tracks.js';
import type { CaptureStates, PartLog } from './ports.js';

/** A recording's figures so far, read from what the capture stores anyway (its segments and gaps): nothing is written to give them. */
export interface CaptureProgress {
  /** Seconds of the clock since the capture started. */
  elapsedSeconds: number;
  /** Seconds of media recorded (of one track, for a capture of fragments). */
  recordedSeconds: number;
  bytes: number;
  /** The rate of the last BITRATE_WINDOW_SECONDS of recorded media, in bits a second; null before two segments of a part are recorded. */
  bitsPerSecond: number | null;
  /** Runs of lost segments, and the seconds of media they held. */
  gaps: number;
  lostSeconds: number;
  /** When the recent frame was stored; null before the first. */
  frameAt: Date | null;
}

/** Over how many seconds of the last recorded media the bitrate is measured. */
export const BITRATE_WINDOW_SECONDS = 30;
/** How many of the last segments are read to measure it: 30 s of 1-second fragments, video and audio, with room to spare. */
const RECENT_SEGMENTS = 64;

/** The figures of a capture from its parts, gaps and last segments (in sequence order), at `now`. */
export function progressOf(
  capture: Capture,
  recorded: { parts: readonly CapturePart[]; gaps: readonly Gap[]; recent: readonly RecordedSegment[] },
  now: Date,
): CaptureProgress {
  const fragments = capture.fragmentFormats !== null;
  const seconds = recorded.parts.reduce((sum, part) => sum + part.seconds, 0);
  return {
    elapsedSeconds: Math.max(0, Math.round((now.getTime() - capture.startedAt.getTime()) / 1000)),
    // a capture of fragments records each second twice, as a video and an audio fragment of the same length
    recordedSeconds: fragments ? seconds / 2 : seconds,
    bytes: recorded.parts.reduce((sum, part) => sum + part.bytes, 0),
    bitsPerSecond: bitrateOf(recorded.recent, fragments),
    gaps: recorded.gaps.length,
    lostSeconds: recorded.gaps.reduce((sum, gap) => sum + gap.seconds, 0),
    frameAt: capture.frameAt,
  };
}

/**
 * Bits a second of the last segments, newest first until BITRATE_WINDOW_SECONDS of media: a
 * segment's bytes are its end minus the previous segment's in the same part (the first of a part
 * read here has no known start, and is left out); media seconds count the video track only in a
 * capture of fragments.
 */
function bitrateOf(recent: readonly RecordedSegment[], fragments: boolean): number | null {
  let bytes = 0;
  let seconds = 0;
  for (let i = recent.length - 1; i > 0 && seconds < BITRATE_WINDOW_SECONDS; i--) {
    const segment = recent[i] as RecordedSegment;
    const before = recent[i - 1] as RecordedSegment;
    if (before.part !== segment.part) continue;
    bytes += segment.endOffset - before.endOffset;
    if (!fragments || trackOf(segment.sequence) === 'video') seconds += segment.durationSeconds;
  }
  return seconds > 0 ? Math.round((bytes * 8) / seconds) : null;
}

/** The figures of a capture being recorded, its parts and gaps read already; null once it is not recording. */
export async function captureProgress(
  deps: { captures: Pick<PartLog, 'segmentsFrom'> },
  capture: Capture,
  recorded: { parts: readonly CapturePart[]; gaps: readonly Gap[] },
  now = new Date(),
): Promise<CaptureProgress | null> {
  if (!isRecording(capture.state) || capture.nextSequence === null) return null;
  const recent = await deps.captures.segmentsFrom(capture.livestreamId, Math.max(0, capture.nextSequence - RECENT_SEGMENTS));
  return progressOf(capture, { ...recorded, recent }, now);
}

/** The figures of those of `ids` being recorded, by id (four reads each: the queue holds few live records). */
export async function recordingProgress(deps: { captures: CaptureStates & PartLog }, ids: readonly string[]): Promise<Map<string, CaptureProgress>> {
  const found = await Promise.all(
    ids.map(async (id) => {
      const capture = await deps.captures.get(id);
      if (capture === null || !isRecording(capture.state)) return null;
      const [parts, gaps] = await Promise.all([deps.captures.parts(id), deps.captures.gaps(id)]);
      const progress = await captureProgress(deps, capture, { parts, gaps });
      return progress === null ? null : ([id, progress] as const);
    }),
  );
  return new Map(found.filter((entry) => entry !== null));
}
