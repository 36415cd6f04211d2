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

/** One recorded fragment: its number, its track and where its bytes are. */
export interface RecordedFragment extends FragmentSpan {
  n: number;
  track: FragmentTrack;
}

/** The recorded fragments of a capture, in sequence order (as `segments` are): a segment's bytes start where the one before it in its part ended. */
export function recordedFragments(segments: readonly RecordedSegment[]): RecordedFragment[] {
  const partEnds = new Map<number, number>();
  return segments.map((segment) => {
    const startOffset = partEnds.get(segment.part) ?? 0;
    partEnds.set(segment.part, segment.endOffset);
    return { n: fragmentOf(segment.sequence), track: trackOf(segment.sequence), part: segment.part, startOffset, endOffset: segment.endOffset };
  });
}

/** The spans of each track's fragments, in fragment order, from the recorded segments (in sequence order). */
export function trackSpans(segments: readonly RecordedSegment[]): Record<FragmentTrack, FragmentSpan[]> {
  const spans: Record<FragmentTrack, FragmentSpan[]> = { video: [], audio: [] };
  for (const { part, startOffset, endOffset, track } of recordedFragments(segments)) spans[track].push({ part, startOffset, endOffset });
  return spans;
}

/** Bytes of the other track between two of a track's fragments that one read takes along rather than reading the two apart. */
const MAX_SKIP = 256 * 1024;
/** The most one read of a part spans. */
const MAX_READ = 8 * 1024 * 1024;

/** Part offsets `from` to `to` (inclusive) of one span, as a read of the track wants them. */
interface Piece {
  part: number;
  from: number;
  to: number;
}

/**
 * One track as a byte source: its spans' bytes one after another, read from the parts
 * (`parts.get(n)` reads part n). A track's fragments near each other in a part (the video's,
 * between which lie only the audio's) are read in one read, the bytes between them passed over:
 * a store is asked a few times per chunk, not once per fragment.
 */
export function trackSource(spans: readonly FragmentSpan[], parts: ReadonlyMap<number, ByteSource>): ByteSource {
  const bytes = spans.reduce((sum, span) => sum + span.endOffset - span.startOffset, 0);
  async function* read(range: ByteRange): AsyncIterable<Uint8Array> {
    for (const group of readGroups(piecesOf(spans, range))) {
      const first = group[0] as Piece;
      const part = parts.get(first.part);
      if (part === undefined) throw new Error(`part ${first.part} of the capture is missing`);
      yield* keepPieces(part.read({ start: first.from, end: (group.at(-1) as Piece).to }), first.from, group);
    }
  }
  return { bytes, read };
}

/** The part offsets that hold bytes `range.start` to `range.end` of the track, in order. */
function piecesOf(spans: readonly FragmentSpan[], range: ByteRange): Piece[] {
  const pieces: Piece[] = [];
  let at = 0; // where the span begins in the track
  for (const span of spans) {
    const length = span.endOffset - span.startOffset;
    const from = Math.max(range.start, at);
    const to = Math.min(range.end, at + length - 1);
    if (from <= to) pieces.push({ part: span.part, from: span.startOffset + from - at, to: span.startOffset + to - at });
    at += length;
    if (at > range.end) break;
  }
  return pieces;
}

/** Pieces read together: in one part, each within MAX_SKIP of the one before, the whole within MAX_READ. */
function readGroups(pieces: readonly Piece[]): Piece[][] {
  const groups: Piece[][] = [];
  for (const piece of pieces) {
    const group = groups.at(-1);
    const last = group?.at(-1);
    const near = last !== undefined && last.part === piece.part && piece.from > last.to && piece.from - last.to - 1 <= MAX_SKIP;
    if (group !== undefined && near && piece.to - (group[0] as Piece).from < MAX_READ) group.push(piece);
    else groups.push([piece]);
  }
  return groups;
}

/** The bytes of `pieces` out of a read of their part from offset `start`, what lies between them passed over. */
async function* keepPieces(chunks: AsyncIterable<Uint8Array>, start: number, pieces: readonly Piece[]): AsyncIterable<Uint8Array> {
  let position = start; // the part offset of the chunk's first byte
  let next = 0;
  for await (const chunk of chunks) {
    const chunkEnd = position + chunk.length - 1;
    while (next < pieces.length) {
      const piece = pieces[next] as Piece;
      if (piece.from > chunkEnd) break;
      const from = Math.max(piece.from, position);
      const to = Math.min(piece.to, chunkEnd);
      if (from <= to) yield chunk.subarray(from - position, to - position + 1);
      if (piece.to > chunkEnd) break;
      next++;
    }
    position = chunkEnd + 1;
  }
}
