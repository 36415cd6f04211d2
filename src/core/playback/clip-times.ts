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

/**
 * The range of `start` and `end` (as parseTime reads them) within a recording of
 * `recordedSeconds`, at most `maxSeconds` long: `end` past what is recorded is cut to it. Throws
 * `invalid_parameter` (400) naming the field that is wrong, and why.
 */
export function clipRange(input: { start: string; end: string }, recordedSeconds: number, maxSeconds: number): ClipRange {
  const startSeconds = parseTime(input.start);
  const asked = parseTime(input.end);
  const invalid = (detail: string) => new AppError('invalid', 'invalid_parameter', detail);
  const form = 'seconds (3723), a clock (1:02:03) or 1h02m03s';
  if (startSeconds === null) throw invalid(`start: "${input.start}" is not a time; write ${form}.`);
  if (asked === null) throw invalid(`end: "${input.end}" is not a time; write ${form}.`);
  if (startSeconds >= recordedSeconds) {
    throw invalid(`start: ${clockOf(startSeconds)} is past what is recorded (${clockOf(recordedSeconds)}).`);
  }
  if (asked <= startSeconds) throw invalid(`end: ${clockOf(asked)} is not after start (${clockOf(startSeconds)}).`);
  const endSeconds = Math.min(asked, recordedSeconds);
  if (endSeconds - startSeconds > maxSeconds) {
    throw invalid(
      `end: a clip is at most ${clockOf(maxSeconds)} long on this instance (KURA_CLIP_MAX_SECONDS); ${clockOf(startSeconds)} to ${clockOf(endSeconds)} is longer.`,
    );
  }
  return { startSeconds, endSeconds };
}

/** `seconds` as YouTube's link time, `1h02m03s` (`2m03s`, `45s`), whole seconds: what `?t=` takes and file names carry. */
export function linkTimeOf(seconds: number): string {
  const whole = Math.floor(seconds);
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h${two(m)}m${two(s)}s`;
  return m > 0 ? `${m}m${two(s)}s` : `${s}s`;
}
