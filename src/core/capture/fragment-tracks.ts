// Decisions: docs/decisions/0070-youtube-fragments-from-the-first.md
/*
 * A capture of a source's numbered fragments (YouTube's adaptive formats) stores a video and an
 * audio track in the same parts, fragment after fragment: video fragment n is the capture's
 * sequence 2n, audio fragment n is 2n + 1. Each fragment is a file of its own (initialization and
 * media), so a track is its fragments' bytes one after another, whichever parts they are in.
 * Only the video's segments carry seconds; the audio's carry none (they play beside them).
 */
import type { ByteRange } from '../archive/byte-range.js';
import type { ByteSource } from '../archive/ports.js';
import type { RecordedSegment } from './capture.js';

/** The fragment path could not start: nothing was stored, and recording the live edge's playlist instead is the way on. */
export class FragmentsUnavailable extends Error {}

export type FragmentTrack = 'video' | 'audio';
export const FRAGMENT_TRACKS: readonly FragmentTrack[] = ['video', 'audio'];

/** The capture's sequence of fragment `n` of `track`. */
export const sequenceOf = (n: number, track: FragmentTrack): number => 2 * n + (track === 'audio' ? 1 : 0);
/** The fragment number a capture sequence holds. */
export const fragmentOf = (sequence: number): number => Math.floor(sequence / 2);
export const trackOf = (sequence: number): FragmentTrack => (sequence % 2 === 0 ? 'video' : 'audio');

/** Where one recorded fragment's bytes are: bytes [startOffset, endOffset) of `part`. */
export interface FragmentSpan {
  part: number;
  startOffset: number;
  endOffset: number;
}

/**
 * The spans of each track's fragments, in fragment order, from the recorded segments (in sequence
 * order): a segment's bytes start where the one before it in its part ended.
 */
export function trackSpans(segments: readonly RecordedSegment[]): Record<FragmentTrack, FragmentSpan[]> {
  const spans: Record<FragmentTrack, FragmentSpan[]> = { video: [], audio: [] };
  const partEnds = new Map<number, number>();
  for (const segment of segments) {
    const startOffset = partEnds.get(segment.part) ?? 0;
    partEnds.set(segment.part, segment.endOffset);
    spans[trackOf(segment.sequence)].push({ part: segment.part, startOffset, endOffset: segment.endOffset });
  }
  return spans;
}

/** One track as a byte source: its spans' bytes one after another, read from the parts (`parts.get(n)` reads part n). */
export function trackSource(spans: readonly FragmentSpan[], parts: ReadonlyMap<number, ByteSource>): ByteSource {
  const bytes = spans.reduce((sum, span) => sum + span.endOffset - span.startOffset, 0);
  async function* read(range: ByteRange): AsyncIterable<Uint8Array> {
    let at = 0; // where the span begins in the track
    for (const span of spans) {
      const length = span.endOffset - span.startOffset;
      const from = Math.max(range.start, at);
      const to = Math.min(range.end, at + length - 1);
      if (from <= to) {
        const part = parts.get(span.part);
        if (part === undefined) throw new Error(`part ${span.part} of the capture is missing`);
        yield* part.read({ start: span.startOffset + from - at, end: span.startOffset + to - at });
      }
      at += length;
      if (at > range.end) return;
    }
  }
  return { bytes, read };
}
