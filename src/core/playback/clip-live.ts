// Decisions: docs/decisions/0129-live-clips.md
import type { ByteRange } from '../archive/byte-range.js';
import type { ByteSource } from '../archive/ports.js';
import { trackSource, type FragmentSpan } from '../capture/fragment-tracks.js';
import type { RecordedBytes } from '../capture/ports.js';
import { AppError } from '../errors.js';
import type { Livestream } from '../records/livestream.js';
import { clipRange, type ClipAsked } from './clip-times.js';
import { separateAudioNotPlayable, type LiveDeps } from './get-live-playlist.js';
import { hlsTimeline, planFragmentClip, planHlsClip, readableFragments, timelineSeconds, type LiveClipPlan } from './live-clip-plan.js';
import { hasInitSection } from './part-format.js';
import type { ClipCutter, CutClip } from './ports.js';

/** What a clip of a record being recorded reads: live playback's view of the capture, and the cutter. */
export interface LiveClipDeps extends LiveDeps {
  cutter: ClipCutter;
  maxSeconds: number;
}

/** A clip of what a capture has recorded so far, and the lost stretches inside it. */
export type LiveClip = CutClip & { endSeconds: number; lost: LiveClipPlan['lost'] };

/**
 * Cuts `asked` of a record being recorded, on its live timeline (what its live player shows: from
 * the first recorded segment, lost stretches included), from what this process can read of the
 * capture now: the whole segments (HLS) or fragments (YouTube) the range touches, joined without
 * re-encoding. Throws `capture_not_started` (nothing readable here yet) and `invalid_parameter`.
 */
export async function clipLive(deps: LiveClipDeps, record: Livestream, asked: ClipAsked): Promise<LiveClip> {
  const id = record.id;
  const capture = await deps.captures.get(id);
  if (capture !== null && capture.audioLanes.length > 0) throw separateAudioNotPlayable(id);
  const [segments, gaps, readable] =
    capture === null ? [[], [], new Map<number, number>()] : await Promise.all([deps.segments.of(id), deps.captures.gaps(id), deps.bytes.readable(id)]);
  const notStarted = new AppError('conflict', 'capture_not_started', `Nothing of ${id} can be cut yet: its first segments are not recorded here yet.`, 5);
  let plan: LiveClipPlan;
  let mpegts = false;
  const fragments = capture?.fragmentFormats ?? null;
  if (fragments !== null) {
    const recorded = readableFragments(segments, readable, fragments.fragmentSeconds);
    if (recorded.recordedSeconds === 0) throw notStarted;
    const range = clipRange(asked, recorded.recordedSeconds, deps.maxSeconds);
    const inits = new Map<string, number>();
    for (const fragment of recorded.fragments) {
      const key = `${fragment.track} ${fragment.part}`;
      if (inits.has(key)) continue;
      const format = await deps.formats.ofFragment(id, fragment.track, fragment);
      inits.set(key, format !== null && hasInitSection(format) ? format.initBytes : 0);
    }
    plan = planFragmentClip(recorded, range, fragments.fragmentSeconds, inits);
  } else {
    const timeline = hlsTimeline(segments, gaps, readable);
    if (timeline.length === 0) throw notStarted;
    const range = clipRange(asked, timelineSeconds(timeline), deps.maxSeconds);
    const inits = new Map<number, number>();
    for (const { segment } of timeline) {
      if (segment === null || inits.has(segment.part)) continue;
      const format = await deps.formats.of(id, segment.part, segment.endOffset);
      inits.set(segment.part, format?.kind === 'fmp4' ? format.initBytes : 0);
      mpegts ||= format?.kind === 'mpegts';
    }
    plan = planHlsClip(timeline, range, inits);
  }
  const parts = partSources(deps.bytes, id, readable);
  const inputs = plan.inputs.map((sources) => sources.map((spans: FragmentSpan[]) => trackSource(spans, parts)));
  const cut = await deps.cutter.join(inputs, plan.durationSeconds, { mpegts });
  return {
    ...cut,
    startSeconds: plan.startSeconds,
    durationSeconds: plan.durationSeconds,
    endSeconds: plan.startSeconds + plan.durationSeconds,
    lost: plan.lost,
  };
}

/** Each part of the capture as far as this process can read it. */
function partSources(bytes: RecordedBytes, id: string, readable: ReadonlyMap<number, number>): Map<number, ByteSource> {
  const parts = new Map<number, ByteSource>();
  for (const [part, length] of readable) {
    parts.set(part, {
      bytes: length,
      async *read(range: ByteRange) {
        const body = await bytes.read(id, part, range);
        if (body === null) throw new Error(`bytes ${range.start}-${range.end} of part ${part} of ${id} can no longer be read here`);
        yield* body;
      },
    });
  }
  return parts;
}
