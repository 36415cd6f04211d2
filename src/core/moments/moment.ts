// Decisions: docs/decisions/0130-moments.md
import { AppError } from '../errors.js';
import type { RateLimit } from '../rate-limit.js';

/** A time in a record and what happened there (a song, an announcement), added by a user. */
export interface Moment {
  id: string;
  livestreamId: string;
  atSeconds: number;
  text: string;
  /** Who added it, as a submitter is named (`provider/userId`). */
  author: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The longest text of a moment, in characters: a song title with its artist, a line of what happened. */
export const MOMENT_TEXT_MAX = 200;
/** The most moments one record holds: a day of songs, with room. */
export const MOMENTS_PER_RECORD = 500;
/** How many moments one user may add or change: a karaoke stream's set list marked as it is sung, not a flood. */
export const MOMENT_RATE: RateLimit = { limit: 120, windowSeconds: 3600 };

/** `text` as stored: trimmed, one line. Throws `invalid_parameter` (`text: …`) when empty, too long, or holding control characters. */
export function momentText(text: string): string {
  const trimmed = text.trim();
  const invalid = (why: string) => new AppError('invalid', 'invalid_parameter', `text: ${why}`);
  if (trimmed === '') throw invalid('a moment says what happened: give it a text.');
  if ([...trimmed].length > MOMENT_TEXT_MAX) throw invalid(`at most ${MOMENT_TEXT_MAX} characters.`);
  // eslint-disable-next-line no-control-regex -- exactly what is refused
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(trimmed)) throw invalid('one line, without control characters.');
  return trimmed;
}

/** `at` as stored: a time in the recording, within `recordedSeconds` when that is known. Throws `invalid_parameter` (`at: …`). */
export function momentAt(at: number, recordedSeconds: number | null): number {
  if (!Number.isFinite(at) || at < 0) throw new AppError('invalid', 'invalid_parameter', 'at: a time in the recording, in seconds from its start (0 or more).');
  if (recordedSeconds !== null && at > recordedSeconds) {
    throw new AppError('invalid', 'invalid_parameter', `at: ${at} s is past what is recorded (${Math.floor(recordedSeconds)} s).`);
  }
  return Math.round(at * 1000) / 1000;
}
