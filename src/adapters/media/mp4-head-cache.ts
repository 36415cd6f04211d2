// Decisions: docs/decisions/0128-clips.md
import type { ByteRange } from '../../core/archive/byte-range.js';
import type { ByteSource } from '../../core/archive/ports.js';
import { collect } from '../../core/archive/collect-bytes.js';

/** Where top-level box headers are looked for: a faststart MP4's `ftyp` and `moov` header lie within. */
const PROBE_BYTES = 64 * 1024;

/**
 * `source` with its MP4 head (every byte up to the end of a `moov` in front of the media) read
 * once and served from memory: ffprobe and ffmpeg each read the index first, and a long archive's
 * index is megabytes. The source itself when its `moov` is not in front, or is over `maxBytes`.
 */
export async function withCachedHead(source: ByteSource, maxBytes: number): Promise<ByteSource> {
  const end = await headEnd(source);
  if (end === null || end > maxBytes) return source;
  // a view of the joined bytes, not another copy of them (a six-hour index is tens of MB)
  const bytes = await collect(source.read({ start: 0, end: end - 1 }));
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return {
    bytes: source.bytes,
    ...(source.files === undefined ? {} : { files: source.files }),
    read: (range) => readThrough(source, head, range),
  };
}

/** The end of a `moov` box that comes before any `mdat`; null when there is none. */
async function headEnd(source: ByteSource): Promise<number | null> {
  const probe = Buffer.from(await collect(source.read({ start: 0, end: Math.min(PROBE_BYTES, source.bytes) - 1 })));
  for (let offset = 0; offset + 8 <= probe.length;) {
    const size32 = probe.readUInt32BE(offset);
    const type = probe.toString('latin1', offset + 4, offset + 8);
    const size = size32 === 1 && offset + 16 <= probe.length ? Number(probe.readBigUInt64BE(offset + 8)) : size32;
    if (type === 'moov') return offset + size;
    if (type === 'mdat' || size < 8) return null;
    offset += size;
  }
  return null;
}

async function* readThrough(source: ByteSource, head: Buffer, range: ByteRange): AsyncIterable<Uint8Array> {
  if (range.start < head.length) yield head.subarray(range.start, Math.min(range.end + 1, head.length));
  if (range.end >= head.length) yield* source.read({ start: Math.max(range.start, head.length), end: range.end });
}
