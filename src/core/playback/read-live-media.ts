// Decisions: docs/decisions/0044-live-segments-where-they-are.md
import { AppError } from '../errors.js';
import { getLivestream } from '../records/get-livestream.js';
import type { RecordedSegment, SegmentSpan } from '../capture/capture.js';
import { trackOf, type FragmentTrack } from '../capture/fragment-tracks.js';
import type { LiveDeps } from './get-live-playlist.js';
import { hasInitSection, type PartFormat } from './part-format.js';

/** A segment, or a part's initialization section, as a player fetches it. */
export interface LiveMedia {
  format: PartFormat;
  kind: 'segment' | 'init';
  bytes: number;
  body: AsyncIterable<Uint8Array>;
}

/**
 * The bytes of one recorded segment of a record being recorded (without the part's
 * initialization section in front), or of a part's initialization section (`sequence` null),
 * read from what the capture keeps: no copy. For a capture of fragments, a segment is a
 * fragment's bytes after its own initialization section, and `track` names whose section
 * (`sequence` null). Throws `livestream_not_found`, `live_segment_not_found` (not recorded in that
 * part, a lost one, or not readable here) and `live_ended` (the record is finished or failed: the
 * archive replaced its segments).
 */
export async function readLiveMedia(deps: LiveDeps, request: { id: string; part: number; sequence: number | null; track?: FragmentTrack }): Promise<LiveMedia> {
  const { id, part, sequence } = request;
  const record = await getLivestream(deps, id);
  if (record.status === 'finished' || record.status === 'failed') {
    throw new AppError('gone', 'live_ended', `${id} is no longer being recorded (status: ${record.status}); its archive replaces the live segments.`);
  }
  const section = request.track === undefined ? '' : ` of its ${request.track}`;
  const what = sequence === null ? `the initialization section${section} in part ${part}` : `segment ${sequence} of part ${part}`;
  const notFound = new AppError('not_found', 'live_segment_not_found', `${id} has no ${what} that can be served here.`);
  const capture = await deps.captures.get(id);
  const fragments = (capture?.fragmentFormats ?? null) !== null;
  if ((capture?.audioLanes.length ?? 0) > 0) throw notFound; // its live playlist is not served (see separateAudioNotPlayable)
  const found = fragments ? await fragmentMedia(deps, id, part, sequence, request.track) : await partMedia(deps, id, part, sequence, request.track);
  const body = found === null ? null : await deps.bytes.read(id, part, { start: found.start, end: found.end - 1 });
  if (found === null || body === null) throw notFound;
  return { format: found.format, kind: sequence === null ? 'init' : 'segment', bytes: found.end - found.start, body };
}

/** Where a media file is in its part, and the format it is in. */
type Found = { format: PartFormat; start: number; end: number } | null;

/** A segment of an HLS capture, after the part's initialization section, or that section (fMP4 parts only). */
async function partMedia(deps: LiveDeps, id: string, part: number, sequence: number | null, track: FragmentTrack | undefined): Promise<Found> {
  if (track !== undefined) return null; // one track, one section per part
  const first = await deps.captures.firstSegmentPast(id, part, 0);
  const format = first === null ? null : await deps.formats.of(id, part, first.endOffset);
  if (format === null) return null;
  if (sequence === null) return format.kind === 'fmp4' ? { format, start: 0, end: format.initBytes } : null;
  const span = await deps.captures.segment(id, sequence);
  if (span === null || span.part !== part) return null;
  return { format, start: Math.max(span.startOffset, format.kind === 'fmp4' ? format.initBytes : 0), end: span.endOffset };
}

/** A fragment's bytes after its initialization section, or the section of `track`'s fragments in the part (read from the first of them). */
async function fragmentMedia(deps: LiveDeps, id: string, part: number, sequence: number | null, track: FragmentTrack | undefined): Promise<Found> {
  if ((sequence === null) === (track === undefined)) return null; // a fragment's own sequence says its track; a section needs one
  const span = sequence === null ? firstOfTrack(await deps.segments.of(id), part, track as FragmentTrack) : await deps.captures.segment(id, sequence);
  if (span === null || span.part !== part) return null;
  const format = (await deps.formats.ofFragment(id, trackOf(span.sequence), span)) ?? undefined;
  if (!hasInitSection(format) || span.startOffset + format.initBytes >= span.endOffset) return null;
  if (sequence === null) return { format, start: span.startOffset, end: span.startOffset + format.initBytes };
  return { format, start: span.startOffset + format.initBytes, end: span.endOffset };
}

/** The first recorded fragment of `track` in `part`, with where its bytes begin. */
function firstOfTrack(segments: readonly RecordedSegment[], part: number, track: FragmentTrack): SegmentSpan | null {
  let startOffset = 0;
  for (const segment of segments) {
    if (segment.part !== part) continue;
    if (trackOf(segment.sequence) === track) return { ...segment, startOffset };
    startOffset = segment.endOffset;
  }
  return null;
}
