import { clockOf } from '../time-text.js';
import type { Moment } from './moment.js';

/** Moments as the lines people paste under a video (`0:00 Opening`), by time, one a line. */
export function chapterLines(moments: readonly Moment[]): string {
  return [...moments]
    .sort((a, b) => a.atSeconds - b.atSeconds)
    .map((moment) => `${clockOf(moment.atSeconds)} ${moment.text}\n`)
    .join('');
}

/** Moments as a video's chapters: each from its time to the next one's (the last to `lengthSeconds`), named by its text. */
export function chaptersOf(moments: readonly Moment[], lengthSeconds: number): Array<{ startSeconds: number; endSeconds: number; title: string }> {
  const sorted = [...moments].filter((m) => m.atSeconds < lengthSeconds).sort((a, b) => a.atSeconds - b.atSeconds);
  return sorted.map((moment, i) => ({ startSeconds: moment.atSeconds, endSeconds: sorted[i + 1]?.atSeconds ?? lengthSeconds, title: moment.text }));
}
