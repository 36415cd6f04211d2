// Decisions: docs/decisions/0130-moments.md
import { clockOf } from '../time-text.js';
import type { Moment } from './moment.js';

/** Moments as the lines people paste under a video (`0:00 Opening`), by time, one a line. */
export function chapterLines(moments: readonly Moment[]): string {
  return [...moments]
    .sort((a, b) => a.atSeconds - b.atSeconds)
    .map((moment) => `${clockOf(moment.atSeconds)} ${moment.text}\n`)
    .join('');
}
