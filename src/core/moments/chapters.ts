import { clockOf } from '../time-text.js';
import type { Moment } from './moment.js';

/** Moments as the lines people paste under a video (`0:00 Opening`), by time, one a line. */
export function chapterLines(moments: readonly Moment[]): string {
  return [...moments]
    .sort((a, b) => a.atSeconds - b.atSeconds)
    .map((moment) => `${clockOf(moment.atSeconds)} ${moment.text}\n`)
    .join('');
}

/** What the chapter before the first moment is called: MP4 chapters begin at 0, as players list them. */
export const FIRST_CHAPTER = 'Start';

/**
 * Moments as a video's chapters: each from its time to the next one's (the last to
 * `lengthSeconds`), named by its text; before the first moment, a chapter of FIRST_CHAPTER.
 */
export function chaptersOf(moments: readonly Moment[], lengthSeconds: number): Array<{ startSeconds: number; endSeconds: number; title: string }> {
  const sorted = [...moments].filter((m) => m.atSeconds < lengthSeconds).sort((a, b) => a.atSeconds - b.atSeconds);
  const chapters = sorted.map((moment, i) => ({ startSeconds: moment.atSeconds, endSeconds: sorted[i + 1]?.atSeconds ?? lengthSeconds, title: moment.text }));
  const first = chapters[0];
  return first === undefined || first.startSeconds === 0 ? chapters : [{ startSeconds: 0, endSeconds: first.startSeconds, title: FIRST_CHAPTER }, ...chapters];
}
