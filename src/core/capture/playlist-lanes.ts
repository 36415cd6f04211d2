// Decisions: docs/decisions/0136-separate-audio-renditions-as-lanes.md
/*
 * A capture of an HLS playlist whose audio is a separate rendition (or several, one a language)
 * records the variant's video and each rendition as lanes side by side in the same parts: with L
 * lanes (the video and L - 1 renditions), media sequence s of lane k is the capture's sequence
 * L·s + k, the video's lane 0. A capture with no rendition has one lane: its sequences are the
 * playlist's own. Each lane's segment is stored whole (its initialization section, if any, in
 * front), so a lane is its segments' bytes one after another (see trackSource), and only the
 * video's carry seconds (the renditions' play beside them).
 */
import type { AudioLane } from '../sources/ports.js';
import type { RecordedSegment } from './capture.js';
import type { FragmentSpan } from './fragment-tracks.js';

/** How many lanes a capture records: its video's and one per audio rendition. */
export const laneCount = (audio: readonly AudioLane[]): number => 1 + audio.length;
/** The capture's sequence of media sequence `s` of lane `lane` (0: the video's). */
export const laneSequence = (s: number, lane: number, lanes: number): number => s * lanes + lane;
/** The lane a capture sequence is in, and its media sequence there. */
export const laneOf = (sequence: number, lanes: number): { lane: number; s: number } => ({ lane: sequence % lanes, s: Math.floor(sequence / lanes) });

/** The spans of each lane's segments in sequence order (lane 0 the video's), from the recorded segments (in sequence order). */
export function laneSpans(segments: readonly RecordedSegment[], lanes: number): FragmentSpan[][] {
  const spans: FragmentSpan[][] = Array.from({ length: lanes }, () => []);
  const partEnds = new Map<number, number>();
  for (const { sequence, part, endOffset } of segments) {
    // a segment's bytes start where the one before it in its part ended
    spans[laneOf(sequence, lanes).lane]?.push({ part, startOffset: partEnds.get(part) ?? 0, endOffset });
    partEnds.set(part, endOffset);
  }
  return spans;
}
