// Decisions: docs/decisions/0044-live-segments-where-they-are.md
import { AppError } from '../errors.js';
import { getLivestream } from '../livestream/get-livestream.js';
import type { LiveDeps } from './get-live-playlist.js';
import type { PartFormat } from './live-playlist.js';

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
 * read from what the capture keeps: no copy. Throws `livestream_not_found`,
 * `live_segment_not_found` (not recorded in that part, a lost one, or not readable here) and
 * `live_ended` (the record is finished or failed: the archive replaced its segments).
 */
export async function readLiveMedia(deps: LiveDeps, request: { id: string; part: number; sequence: number | null }): Promise<LiveMedia> {
  const { id, part, sequence } = request;
  const record = await getLivestream(deps, id);
  if (record.status === 'finished' || record.status === 'failed') {
    throw new AppError('gone', 'live_ended', `${id} is no longer being recorded (status: ${record.status}); its archive replaces the live segments.`);
  }
  const what = sequence === null ? `the initialization section of part ${part}` : `segment ${sequence} of part ${part}`;
  const notFound = new AppError('not_found', 'live_segment_not_found', `${id} has no ${what} that can be served here.`);
  const first = await deps.captures.firstSegmentPast(id, part, 0);
  const format = first === null ? null : await deps.formats.of(id, part, first.endOffset);
  if (format === null) throw notFound;
  const range = sequence === null ? initRange(format) : await segmentRange(deps, id, part, sequence, format);
  const body = range === null ? null : await deps.bytes.read(id, part, { start: range.start, end: range.end - 1 });
  if (range === null || body === null) throw notFound;
  return { format, kind: sequence === null ? 'init' : 'segment', bytes: range.end - range.start, body };
}

/** Where a part's initialization section is: its first bytes (fMP4 parts only). */
function initRange(format: PartFormat): { start: number; end: number } | null {
  return format.kind === 'fmp4' ? { start: 0, end: format.initBytes } : null;
}

/** Where a segment's own bytes are in its part: the first one's start after the initialization section. */
async function segmentRange(deps: LiveDeps, id: string, part: number, sequence: number, format: PartFormat): Promise<{ start: number; end: number } | null> {
  const span = await deps.captures.segment(id, sequence);
  if (span === null || span.part !== part) return null;
  return { start: Math.max(span.startOffset, format.kind === 'fmp4' ? format.initBytes : 0), end: span.endOffset };
}
