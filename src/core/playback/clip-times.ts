// Decisions: docs/decisions/0128-clips.md
import { AppError } from '../errors.js';

/**
 * A time in a recording as people write it: seconds (`3723`, `3723.5`), a clock (`1:02:03`,
 * `62:03`) or YouTube's link form (`1h02m03s`, `2m`, `45s`). Null when it is none of these.
 */
export function parseTime(text: string): number | null {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const clock = /^(?:(\d+):)?(\d+):(\d{1,2}(?:\.\d+)?)$/.exec(trimmed);
  if (clock !== null) {
    const [, hours = '0', minutes = '0', seconds = '0'] = clock;
    if (Number(seconds) >= 60 || (clock[1] !== undefined && Number(minutes) >= 60)) return null;
    return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
  }
  const units = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(trimmed);
  if (units === null || trimmed === '') return null;
  const [, hours = '0', minutes = '0', seconds = '0'] = units;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
}

/** `seconds` as a clock, `1:02:03` (or `2:03` under an hour), whole seconds. */
export function clockOf(seconds: number): string {
  const whole = Math.floor(seconds);
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

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

/** `seconds` as YouTube's link time, `1h02m03s` (`2m03s`, `45s`), whole seconds: what `?t=` takes and file names carry. */
export function linkTimeOf(seconds: number): string {
  const whole = Math.floor(seconds);
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h${two(m)}m${two(s)}s`;
  return m > 0 ? `${m}m${two(s)}s` : `${s}s`;
}
