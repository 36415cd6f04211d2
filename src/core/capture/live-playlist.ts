import type { Gap, StoredSegment } from './capture.js';

/** How a part holds its media: MPEG-TS (or another format needing nothing in front), or fragmented MP4 behind its initialization section. */
export type PartFormat = { kind: 'mpegts' } | { kind: 'fmp4'; initBytes: number };

export interface LivePlaylistInput {
  /** The segments to list, in sequence order: those this process can serve, from the first recorded. */
  segments: readonly StoredSegment[];
  /** Lost sequences among them (none past the last listed segment unless the capture has ended). */
  gaps: readonly Gap[];
  formats: ReadonlyMap<number, PartFormat>;
  /** Nothing more will be recorded, and every segment is listed. */
  ended: boolean;
}

/** Where a segment (or a part's initialization section) is served, relative to the playlist's own URL. */
export const liveUris = {
  segment: (part: number, sequence: number, format: PartFormat | undefined) => `live/${part}/${sequence}.${format?.kind === 'fmp4' ? 'm4s' : 'ts'}`,
  init: (part: number) => `live/${part}/init.mp4`,
};

type Entry = { kind: 'segment'; segment: StoredSegment } | { kind: 'gap'; gap: Gap };

/**
 * An HLS `EVENT` playlist of everything recorded so far, from the first segment: each part after
 * the first begins with `#EXT-X-DISCONTINUITY` (a new part is a new timeline, or a new
 * initialization section), an fMP4 part with `#EXT-X-MAP`, and each lost sequence is listed as an
 * `#EXT-X-GAP` segment of its share of the gap's time, so the timeline keeps its length and media
 * sequence numbers stay those of the source. A hole nothing accounts for gets a discontinuity:
 * never a silent jump. `#EXT-X-ENDLIST` once the capture has ended.
 */
export function buildLivePlaylist(input: LivePlaylistInput): string {
  const entries: Entry[] = [
    ...input.segments.map((segment): Entry => ({ kind: 'segment', segment })),
    ...input.gaps.map((gap): Entry => ({ kind: 'gap', gap })),
  ].sort((a, b) => firstSequence(a) - firstSequence(b));
  const body: string[] = [];
  let part: number | null = null;
  let expected: number | null = null;
  let longest = 1;
  for (const entry of entries) {
    if (expected !== null && firstSequence(entry) !== expected) body.push('#EXT-X-DISCONTINUITY');
    if (entry.kind === 'segment') {
      const { segment } = entry;
      const format = input.formats.get(segment.part);
      if (part !== null && segment.part !== part && body.at(-1) !== '#EXT-X-DISCONTINUITY') body.push('#EXT-X-DISCONTINUITY');
      if (segment.part !== part && format?.kind === 'fmp4') body.push(`#EXT-X-MAP:URI="${liveUris.init(segment.part)}"`);
      body.push(extinf(segment.durationSeconds), liveUris.segment(segment.part, segment.sequence, format));
      longest = Math.max(longest, segment.durationSeconds);
      part = segment.part;
      expected = segment.sequence + 1;
    } else {
      const { gap } = entry;
      const count = gap.lastSequence - gap.firstSequence + 1;
      const share = gap.seconds / count;
      // a gap's URI is never fetched (players skip GAP segments); it names the part it falls in
      const gapPart = part ?? input.segments[0]?.part ?? 1;
      for (let sequence = gap.firstSequence; sequence <= gap.lastSequence; sequence++) {
        body.push('#EXT-X-GAP', extinf(share), liveUris.segment(gapPart, sequence, input.formats.get(gapPart)));
      }
      longest = Math.max(longest, share);
      expected = gap.lastSequence + 1;
    }
  }
  const fmp4 = [...input.formats.values()].some((format) => format.kind === 'fmp4');
  const head = [
    '#EXTM3U',
    `#EXT-X-VERSION:${fmp4 ? 6 : 3}`, // EXT-X-MAP outside an I-frame playlist needs version 6
    '#EXT-X-PLAYLIST-TYPE:EVENT',
    `#EXT-X-TARGETDURATION:${Math.ceil(longest)}`,
    `#EXT-X-MEDIA-SEQUENCE:${entries[0] === undefined ? 0 : firstSequence(entries[0])}`,
  ];
  return [...head, ...body, ...(input.ended ? ['#EXT-X-ENDLIST'] : []), ''].join('\n');
}

function firstSequence(entry: Entry): number {
  return entry.kind === 'segment' ? entry.segment.sequence : entry.gap.firstSequence;
}

function extinf(seconds: number): string {
  return `#EXTINF:${seconds.toFixed(6)},`;
}
