// Decisions: docs/decisions/0043-live-playlist.md
import type { FragmentSpan, FragmentTrack } from '../capture/fragment-tracks.js';
import type { PartFormat } from './part-format.js';
import { readPartFormat } from './part-format.js';
import type { RecordedBytes } from '../capture/ports.js';
import { collect } from '../archive/collect-bytes.js';

/** How many parts' formats a process remembers (a few bytes each). */
const REMEMBERED = 10_000;

/**
 * The format of each part players ask about, read once from the part's first bytes and then
 * remembered: a part's head never changes once its first segment is recorded, and a playlist is
 * asked for every few seconds by every viewer.
 */
export class PartFormats {
  private readonly known = new Map<string, PartFormat>();

  constructor(private readonly bytes: RecordedBytes) {}

  /** The format of `part`, whose first segment ends at `firstSegmentEnd`; null when its first bytes cannot be read here. */
  of(livestreamId: string, part: number, firstSegmentEnd: number): Promise<PartFormat | null> {
    return this.read(`${livestreamId}/${part}`, livestreamId, { part, startOffset: 0, endOffset: firstSegmentEnd });
  }

  /**
   * The format of `track`'s fragments in `fragment`'s part, read from that fragment's own bytes (a
   * fragment is a file of its own: an fMP4 one begins with its initialization section), and kept
   * for the part and track: every fragment of a format carries the same section. Null when the
   * fragment's bytes cannot be read here.
   */
  ofFragment(livestreamId: string, track: FragmentTrack, fragment: FragmentSpan): Promise<PartFormat | null> {
    return this.read(`${livestreamId}/${fragment.part}/${track}`, livestreamId, fragment);
  }

  /** The format of the file at bytes [startOffset, endOffset) of a part, read once for `key`. */
  private async read(key: string, livestreamId: string, file: FragmentSpan): Promise<PartFormat | null> {
    const known = this.known.get(key);
    if (known !== undefined) return known;
    const { part, startOffset, endOffset } = file;
    let readable = true;
    const format = await readPartFormat(async (offset, length) => {
      const start = startOffset + offset;
      const end = Math.min(start + length, endOffset) - 1;
      const bytes = end < start ? null : await this.bytes.read(livestreamId, part, { start, end });
      if (bytes === null) {
        readable = end < start; // past the file: nothing to read; otherwise the bytes are not here (yet)
        return new Uint8Array(0);
      }
      return collect(bytes);
    }, endOffset - startOffset);
    if (!readable) return null;
    if (this.known.size >= REMEMBERED) this.known.delete(this.known.keys().next().value as string);
    this.known.set(key, format);
    return format;
  }
}

/**
 * How many of `items` (in order) this process can serve: up to the first whose bytes are not all
 * readable here (`readable`: how many bytes of each part are), or whose format — read with
 * `formatOf` from the first item of each `keyOf` — cannot be read yet; with the formats read.
 */
export async function servablePrefix<T extends { part: number; endOffset: number }, K>(
  items: readonly T[],
  readable: ReadonlyMap<number, number>,
  keyOf: (item: T) => K,
  formatOf: (item: T) => Promise<PartFormat | null>,
): Promise<{ count: number; formats: Map<K, PartFormat> }> {
  const formats = new Map<K, PartFormat>();
  let count = 0;
  for (const item of items) {
    if (item.endOffset > (readable.get(item.part) ?? 0)) break;
    const key = keyOf(item);
    if (!formats.has(key)) {
      const format = await formatOf(item);
      if (format === null) break;
      formats.set(key, format);
    }
    count++;
  }
  return { count, formats };
}
