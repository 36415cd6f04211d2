// Decisions: docs/decisions/0043-live-playlist.md
import type { Gap, RecordedSegment } from '../capture/capture.js';
import { hasInitSection, type PartFormat } from './part-format.js';

export interface LivePlaylistInput {
  /** The segments to list, in sequence order: those this process can serve, from the first recorded. */
  segments: readonly RecordedSegment[];
  /** Lost sequences among them (none past the last listed segment unless the capture has ended). */
  gaps: readonly Gap[];
  formats: ReadonlyMap<number, PartFormat>;
  /** Nothing more will be recorded, and every segment is listed. */
  ended: boolean;
  /** A Playlist Delta Update was asked for (`_HLS_skip=YES`): the entries older than the skip boundary are left out. */
  delta?: boolean;
  /** Where the entries are served (liveUris unless given: those of `live.m3u8`). */
  uris?: LiveUris;
}

/** Where a segment (or a part's initialization section) is served, relative to the playlist's own URL. */
export interface LiveUris {
  segment(part: number, sequence: number, format: PartFormat | undefined): string;
  init(part: number, format: PartFormat | undefined): string;
}

/** Where the segments of `live.m3u8` are served, relative to it. */
export const liveUris: LiveUris = {
  segment: (part, sequence, format) => `live/${part}/${sequence}.${format?.kind === 'fmp4' ? 'm4s' : 'ts'}`,
  init: (part) => `live/${part}/init.mp4`,
};

/** A media segment line of the playlist, with the tags that go in front of it. */
interface Entry {
  sequence: number;
  part: number;
  seconds: number;
  gap: boolean;
  discontinuity: boolean;
  /** The part whose initialization section this entry plays behind (fMP4), and whether it is the first one behind it. */
  mapPart: number | null;
  newMap: boolean;
}

/** Skip Boundary in target durations: the least RFC 8216bis §4.4.3.8 allows, so a delta update stays short. */
const SKIP_TARGETS = 6;

/**
 * An HLS `EVENT` playlist of everything recorded so far, from the first segment: each part after
 * the first begins with `#EXT-X-DISCONTINUITY` (a new part is a new timeline, or a new
 * initialization section), an fMP4 part with `#EXT-X-MAP`, and each lost sequence is listed as an
 * `#EXT-X-GAP` segment of its share of the gap's time, so the timeline keeps its length and media
 * sequence numbers stay those of the source. A hole nothing accounts for gets a discontinuity:
 * never a silent jump. `#EXT-X-ENDLIST` once the capture has ended. A player that already has
 * the playlist may ask for a delta update (`#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL`, hls.js does):
 * a 10-hour capture lists 18,000 segments (600 kB), reloaded every target duration.
 */
export function buildLivePlaylist(input: LivePlaylistInput): string {
  const uris = input.uris ?? liveUris;
  const entries = listEntries(input);
  let longest = 1;
  for (const entry of entries) longest = Math.max(longest, entry.seconds);
  const target = Math.ceil(longest);
  const skipUntil = SKIP_TARGETS * target;
  const skipped = input.delta === true ? countSkipped(entries, skipUntil) : 0;
  const fmp4 = [...input.formats.values()].some(hasInitSection);
  const discontinuities = entries.slice(0, skipped).filter((e) => e.discontinuity).length;
  const head = [
    '#EXTM3U',
    // EXT-X-SKIP needs version 9; EXT-X-MAP outside an I-frame playlist needs 6
    `#EXT-X-VERSION:${skipped > 0 ? 9 : fmp4 ? 6 : 3}`,
    '#EXT-X-PLAYLIST-TYPE:EVENT',
    `#EXT-X-TARGETDURATION:${target}`,
    `#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=${skipUntil.toFixed(1)}`,
    `#EXT-X-MEDIA-SEQUENCE:${entries[0]?.sequence ?? 0}`,
    // the entries after a skip count their timelines from those of the skipped ones
    ...(discontinuities > 0 ? [`#EXT-X-DISCONTINUITY-SEQUENCE:${discontinuities}`] : []),
    ...(skipped > 0 ? [`#EXT-X-SKIP:SKIPPED-SEGMENTS=${skipped}`] : []),
  ];
  const body: string[] = [];
  for (let i = skipped; i < entries.length; i++) {
    const entry = entries[i] as Entry;
    if (entry.discontinuity) body.push('#EXT-X-DISCONTINUITY');
    // after a skip, the section the first entry plays behind is named again
    if (entry.mapPart !== null && (entry.newMap || (i === skipped && skipped > 0)))
      body.push(`#EXT-X-MAP:URI="${uris.init(entry.mapPart, input.formats.get(entry.mapPart))}"`);
    if (entry.gap) body.push('#EXT-X-GAP');
    body.push(`#EXTINF:${entry.seconds.toFixed(6)},`, uris.segment(entry.part, entry.sequence, input.formats.get(entry.part)));
  }
  return [...head, ...body, ...(input.ended ? ['#EXT-X-ENDLIST'] : []), ''].join('\n');
}

/** The segments and lost sequences in sequence order (both lists are), each with the tags it needs in front. */
function listEntries(input: LivePlaylistInput): Entry[] {
  const { segments, gaps, formats } = input;
  const entries: Entry[] = [];
  let part: number | null = null;
  let mapPart: number | null = null;
  const jumpsTo = (sequence: number) => entries.length > 0 && sequence !== (entries.at(-1) as Entry).sequence + 1;
  for (let s = 0, g = 0; s < segments.length || g < gaps.length;) {
    const segment = segments[s];
    const gap = gaps[g];
    if (segment !== undefined && (gap === undefined || segment.sequence < gap.firstSequence)) {
      const discontinuity = jumpsTo(segment.sequence) || (part !== null && segment.part !== part);
      const newMap = segment.part !== part && hasInitSection(formats.get(segment.part));
      if (segment.part !== part) mapPart = newMap ? segment.part : null;
      entries.push({ sequence: segment.sequence, part: segment.part, seconds: segment.durationSeconds, gap: false, discontinuity, mapPart, newMap });
      part = segment.part;
      s++;
      continue;
    }
    const lost = gap as Gap;
    const share = lost.seconds / (lost.lastSequence - lost.firstSequence + 1);
    // a gap's URI is never fetched (players skip GAP segments); it names the part it falls in
    const gapPart = part ?? segments[0]?.part ?? 1;
    const discontinuity = jumpsTo(lost.firstSequence);
    for (let sequence = lost.firstSequence; sequence <= lost.lastSequence; sequence++) {
      entries.push({
        sequence,
        part: gapPart,
        seconds: share,
        gap: true,
        discontinuity: discontinuity && sequence === lost.firstSequence,
        mapPart,
        newMap: false,
      });
    }
    g++;
  }
  return entries;
}

/** How many entries from the start end more than `skipUntil` seconds before the playlist's end. */
function countSkipped(entries: readonly Entry[], skipUntil: number): number {
  const total = entries.reduce((sum, e) => sum + e.seconds, 0);
  let elapsed = 0;
  let count = 0;
  for (const entry of entries) {
    elapsed += entry.seconds;
    if (elapsed > total - skipUntil) break;
    count++;
  }
  return count;
}
