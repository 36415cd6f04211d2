// Decisions: docs/decisions/0043-live-playlist.md
import type { PartFormat } from './live-playlist.js';
import { readPartFormat } from './part-format.js';
import type { RecordedBytes } from './ports.js';

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
  async of(livestreamId: string, part: number, firstSegmentEnd: number): Promise<PartFormat | null> {
    const key = `${livestreamId}/${part}`;
    const known = this.known.get(key);
    if (known !== undefined) return known;
    let readable = true;
    const format = await readPartFormat(async (offset, length) => {
      const end = Math.min(offset + length, firstSegmentEnd) - 1;
      const bytes = end < offset ? null : await this.bytes.read(livestreamId, part, { start: offset, end });
      if (bytes === null) {
        readable = end < offset; // past the segment: nothing to read; otherwise the bytes are not here (yet)
        return new Uint8Array(0);
      }
      return collect(bytes);
    }, firstSegmentEnd);
    if (!readable) return null;
    if (this.known.size >= REMEMBERED) this.known.delete(this.known.keys().next().value as string);
    this.known.set(key, format);
    return format;
  }
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    parts.push(chunk);
    length += chunk.length;
  }
  const joined = new Uint8Array(length);
  let at = 0;
  for (const chunk of parts) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return joined;
}
