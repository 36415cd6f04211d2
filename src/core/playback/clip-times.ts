// Decisions: docs/decisions/0128-clips.md
import { AppError } from '../errors.js';
import { clockOf, parseTime } from '../time-text.js';

/** What a clip asks for, in seconds of the recording. */
export interface ClipRange {
  startSeconds: number;
  endSeconds: number;
}

/** A clip as asked: `start` and `end`, or the `last` seconds recorded (each as parseTime reads it). */
export interface ClipAsked {
  start?: string;
  end?: string;
  last?: string;
}

/**
 * The range asked within a recording of `recordedSeconds`, at most `maxSeconds` long: `end` past
 * what is recorded is cut to it, and `last` is counted back from it. Throws `invalid_parameter`
 * (400) naming the field that is wrong, and why.
 */
export function clipRange(asked: ClipAsked, recordedSeconds: number, maxSeconds: number): ClipRange {
  const invalid = (detail: string) => new AppError('invalid', 'invalid_parameter', detail);
  const form = 'seconds (3723), a clock (1:02:03) or 1h02m03s';
  const read = (field: 'start' | 'end' | 'last', text: string) => {
    const seconds = parseTime(text);
    if (seconds === null) throw invalid(`${field}: "${text}" is not a time; write ${form}.`);
    return seconds;
  };
  if (asked.last !== undefined) {
    if (asked.start !== undefined || asked.end !== undefined) throw invalid('last: give last alone, or start and end.');
    const last = read('last', asked.last);
    if (last <= 0) throw invalid('last: a clip of the last 0 seconds is empty.');
    return within({ startSeconds: Math.max(0, recordedSeconds - last), endSeconds: recordedSeconds }, 'last', maxSeconds);
  }
  if (asked.start === undefined) throw invalid('start: give start and end (or last).');
  if (asked.end === undefined) throw invalid('end: give start and end (or last).');
  const startSeconds = read('start', asked.start);
  const endAsked = read('end', asked.end);
  if (startSeconds >= recordedSeconds) {
    throw invalid(`start: ${clockOf(startSeconds)} is past what is recorded (${clockOf(recordedSeconds)}).`);
  }
  if (endAsked <= startSeconds) throw invalid(`end: ${clockOf(endAsked)} is not after start (${clockOf(startSeconds)}).`);
  return within({ startSeconds, endSeconds: Math.min(endAsked, recordedSeconds) }, 'end', maxSeconds);
}

/** `range`, unless it is longer than `maxSeconds`: then `invalid_parameter` naming `field`. */
function within(range: ClipRange, field: string, maxSeconds: number): ClipRange {
  if (range.endSeconds - range.startSeconds <= maxSeconds) return range;
  throw new AppError(
    'invalid',
    'invalid_parameter',
    `${field}: a clip is at most ${clockOf(maxSeconds)} long on this instance (KURA_CLIP_MAX_SECONDS); ${clockOf(range.startSeconds)} to ${clockOf(range.endSeconds)} is longer.`,
  );
}
