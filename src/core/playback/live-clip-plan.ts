// Decisions: docs/decisions/0129-live-clips.md
import type { Gap, RecordedSegment } from '../capture/capture.js';
import { FRAGMENT_TRACKS, recordedFragments, type FragmentSpan, type RecordedFragment } from '../capture/fragment-tracks.js';
import type { ClipRange } from './clip-times.js';

/** A stretch the recording lost inside a clip: where (seconds from the clip's start) and how long. */
export interface LostStretch {
  atSeconds: number;
  seconds: number;
}

/**
 * What a clip of a capture under way reads: its inputs (one per track, a video and an audio track
 * are two; each a list of sources played one after another, each source the spans of one run of
 * whole segments in a part), where it begins on the live timeline (its first whole segment's
 * start), how long it is, and the recording's lost stretches inside it. A run goes on across
 * what was lost inside its part, whose media's own times keep the hole, as the archive will.
 */
export interface LiveClipPlan {
  inputs: FragmentSpan[][][];
  startSeconds: number;
  /** From the start to the end asked, on the live timeline (lost stretches included). */
  durationSeconds: number;
  lost: LostStretch[];
}

/** A segment on the live timeline, or a lost one (no segment) with its share of its gap's seconds. */
export interface Placed {
  atSeconds: number;
  seconds: number;
  segment: RecordedSegment | null;
  startOffset: number;
}

/**
 * The live timeline of an HLS capture as its live playlist has it: every segment from the first,
 * each lost run with its gap's seconds. Only segments this process can read whole are on it, up
 * to the first it cannot (what a clip can read now).
 */
export function hlsTimeline(segments: readonly RecordedSegment[], gaps: readonly Gap[], readable: ReadonlyMap<number, number>): Placed[] {
  const placed: Placed[] = [];
  const partEnds = new Map<number, number>();
  let at = 0;
  let g = 0;
  for (const segment of segments) {
    if (segment.endOffset > (readable.get(segment.part) ?? 0)) break;
    for (; g < gaps.length && (gaps[g] as Gap).firstSequence < segment.sequence; g++) {
      const gap = gaps[g] as Gap;
      // what was lost before the first segment is no part of the timeline
      if (placed.length === 0) continue;
      placed.push({ atSeconds: at, seconds: gap.seconds, segment: null, startOffset: 0 });
      at += gap.seconds;
    }
    placed.push({ atSeconds: at, seconds: segment.durationSeconds, segment, startOffset: partEnds.get(segment.part) ?? 0 });
    partEnds.set(segment.part, segment.endOffset);
    at += segment.durationSeconds;
  }
  return placed;
}

/** The recorded length of a timeline. */
export function timelineSeconds(timeline: readonly Placed[]): number {
  const last = timeline.at(-1);
  return last === undefined ? 0 : last.atSeconds + last.seconds;
}

/**
 * `range` of an HLS capture's timeline: the whole segments it touches, each run of them in one
 * part one source (behind the part's initialization section, `initBytes[part]`, for fMP4).
 */
export function planHlsClip(timeline: readonly Placed[], range: ClipRange, initBytes: ReadonlyMap<number, number>): LiveClipPlan {
  const touched = timeline.filter((p) => p.atSeconds + p.seconds > range.startSeconds && p.atSeconds < range.endSeconds);
  const used = touched.slice(
    Math.max(
      0,
      touched.findIndex((p) => p.segment !== null),
    ),
  );
  const startSeconds = used[0]?.atSeconds ?? range.startSeconds;
  const sources: FragmentSpan[][] = [];
  let run: { part: number; from: number; to: number } | null = null;
  const close = () => {
    if (run === null) return;
    const init = initBytes.get(run.part) ?? 0;
    const media = { part: run.part, startOffset: Math.max(run.from, init), endOffset: run.to };
    sources.push(init > 0 ? [{ part: run.part, startOffset: 0, endOffset: init }, media] : [media]);
    run = null;
  };
  for (const { segment, startOffset } of used) {
    if (segment === null) continue;
    if (run !== null && run.part !== segment.part) close();
    if (run === null) run = { part: segment.part, from: startOffset, to: segment.endOffset };
    else run.to = segment.endOffset;
  }
  close();
  const lost = used.filter((p) => p.segment === null).map((p) => ({ atSeconds: p.atSeconds, seconds: p.seconds }));
  return finished([sources], startSeconds, Math.min(range.endSeconds, timelineSeconds(timeline)), lost);
}

/** A capture of fragments: each fragment's format's initialization section, by track and part (`video 3`). */
export type FragmentInits = ReadonlyMap<string, number>;

/**
 * The fragments of a capture this process can read whole, up to the first it cannot, and the
 * recorded length on the live timeline (from the first video fragment, `fragmentSeconds` each).
 */
export function readableFragments(segments: readonly RecordedSegment[], readable: ReadonlyMap<number, number>, fragmentSeconds: number) {
  const all = recordedFragments(segments);
  const firstUnreadable = all.findIndex((f) => f.endOffset > (readable.get(f.part) ?? 0));
  const fragments = firstUnreadable < 0 ? all : all.slice(0, firstUnreadable);
  const video = fragments.filter((f) => f.track === 'video');
  const first = video[0]?.n ?? 0;
  const lastN = Math.min(...FRAGMENT_TRACKS.map((track) => Math.max(-1, ...fragments.filter((f) => f.track === track).map((f) => f.n))));
  return { fragments, firstN: first, recordedSeconds: Math.max(0, lastN - first + 1) * fragmentSeconds };
}

/**
 * `range` of a capture of fragments: the fragments of both tracks it touches (fragment n spans
 * `(n − firstN) × fragmentSeconds` on), each track one input, each run of a track's fragments in
 * one part one source: the first fragment's initialization section, then each fragment's media.
 */
export function planFragmentClip(
  recorded: { fragments: readonly RecordedFragment[]; firstN: number; recordedSeconds: number },
  range: ClipRange,
  fragmentSeconds: number,
  inits: FragmentInits,
): LiveClipPlan {
  const from = recorded.firstN + Math.floor(range.startSeconds / fragmentSeconds);
  const to = recorded.firstN + Math.ceil(range.endSeconds / fragmentSeconds) - 1;
  const inRange = recorded.fragments.filter((f) => f.n >= from && f.n <= to);
  const videoNs = new Set(inRange.filter((f) => f.track === 'video').map((f) => f.n));
  const firstVideo = Math.min(...videoNs);
  const startSeconds = (firstVideo - recorded.firstN) * fragmentSeconds;
  const inputs = FRAGMENT_TRACKS.map((track) => {
    const sources: FragmentSpan[][] = [];
    let last: RecordedFragment | null = null;
    for (const fragment of inRange.filter((f) => f.track === track && f.n >= firstVideo)) {
      const init = inits.get(`${track} ${fragment.part}`) ?? 0;
      if (last === null || last.part !== fragment.part)
        sources.push([{ part: fragment.part, startOffset: fragment.startOffset, endOffset: fragment.startOffset + init }]);
      (sources.at(-1) as FragmentSpan[]).push({ part: fragment.part, startOffset: fragment.startOffset + init, endOffset: fragment.endOffset });
      last = fragment;
    }
    return sources;
  });
  const lost: LostStretch[] = [];
  for (let n = firstVideo; n <= to && (n - recorded.firstN) * fragmentSeconds < recorded.recordedSeconds; n++) {
    if (videoNs.has(n)) continue;
    const previous = lost.at(-1);
    const atSeconds = (n - recorded.firstN) * fragmentSeconds;
    if (previous !== undefined && previous.atSeconds + previous.seconds === atSeconds) previous.seconds += fragmentSeconds;
    else lost.push({ atSeconds, seconds: fragmentSeconds });
  }
  return finished(inputs, startSeconds, Math.min(range.endSeconds, recorded.recordedSeconds), lost);
}

/** The plan from `startSeconds` to `endSeconds`, its lost stretches (on the timeline) made relative to its start. */
function finished(inputs: FragmentSpan[][][], startSeconds: number, endSeconds: number, lostOnTimeline: readonly LostStretch[]): LiveClipPlan {
  const lost = lostOnTimeline.map((stretch) => ({
    atSeconds: stretch.atSeconds - startSeconds,
    seconds: Math.min(stretch.seconds, endSeconds - stretch.atSeconds),
  }));
  return { inputs, startSeconds, durationSeconds: endSeconds - startSeconds, lost };
}
