import type { PartFormat } from './live-playlist.js';

/** Reads `length` bytes of a part from `offset` (fewer at its end). */
export type ReadAt = (offset: number, length: number) => Promise<Uint8Array>;

/** Top-level boxes a fragmented MP4 media segment may start with (ISO/IEC 23009-1 and RFC 8216 §3.3). */
const SEGMENT_BOXES = new Set(['styp', 'sidx', 'ssix', 'prft', 'emsg', 'moof']);
/** Boxes a part starting with one of these is an MP4 file; anything else (MPEG-TS, packed audio) needs nothing in front. */
const FILE_BOXES = new Set(['ftyp', 'moov', 'free', 'skip', 'pdin', 'uuid']);
const MAX_BOXES = 64;

/**
 * How a part holds its media, read from its first bytes (`firstSegmentEnd`: where its first
 * segment ends). A part of fMP4 segments begins with the initialization section the capture wrote
 * in front of them (an `ftyp` and `moov`, as `#EXT-X-MAP` served it), and the first segment's own
 * bytes begin at its first `moof` (or `styp`, `sidx`…): the section is everything before that.
 */
export async function readPartFormat(readAt: ReadAt, firstSegmentEnd: number): Promise<PartFormat> {
  let offset = 0;
  let sawMoov = false;
  for (let boxes = 0; boxes < MAX_BOXES && offset + 8 <= firstSegmentEnd; boxes++) {
    const header = await readAt(offset, 16);
    if (header.length < 8) break;
    const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
    const type = String.fromCharCode(...header.subarray(4, 8));
    if (SEGMENT_BOXES.has(type)) return sawMoov && offset > 0 ? { kind: 'fmp4', initBytes: offset } : { kind: 'mpegts' };
    if (!FILE_BOXES.has(type)) break;
    sawMoov ||= type === 'moov';
    const size32 = view.getUint32(0);
    // size 1: a 64-bit size follows the type; size 0 (to the end of the file) cannot hold a segment after it
    const size = size32 === 1 && header.length >= 16 ? Number(view.getBigUint64(8)) : size32;
    if (size < 8) break;
    offset += size;
  }
  return { kind: 'mpegts' };
}
