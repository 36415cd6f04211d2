/**
 * How a part (or a fragment) holds its media: MPEG-TS (or another format needing nothing in
 * front), or fragmented MP4 or WebM behind an initialization section of `initBytes` (WebM: only
 * in a capture of a source's fragments, played by the page's own player, as HLS cannot carry it).
 */
export type PartFormat = { kind: 'mpegts' } | { kind: 'fmp4' | 'webm'; initBytes: number };

/** Whether a part's segments play behind an initialization section (`#EXT-X-MAP`). */
export const hasInitSection = (format: PartFormat | undefined): format is Extract<PartFormat, { initBytes: number }> =>
  format !== undefined && format.kind !== 'mpegts';

/** Reads `length` bytes of a part from `offset` (fewer at its end). */
export type ReadAt = (offset: number, length: number) => Promise<Uint8Array>;

/** Top-level boxes a fragmented MP4 media segment may start with (ISO/IEC 23009-1 and RFC 8216 §3.3). */
const SEGMENT_BOXES = new Set(['styp', 'sidx', 'ssix', 'prft', 'emsg', 'moof']);
/** Boxes a part starting with one of these is an MP4 file; anything else (MPEG-TS, packed audio) needs nothing in front. */
const FILE_BOXES = new Set(['ftyp', 'moov', 'free', 'skip', 'pdin', 'uuid']);
const MAX_BOXES = 64;
/** The EBML elements a WebM file opens with (Matroska IDs, marker bits kept). */
const EBML_HEADER = 0x1a45dfa3;
const WEBM_SEGMENT = 0x18538067;
const WEBM_CLUSTER = 0x1f43b675;

/**
 * How a part holds its media, read from its first bytes (`firstSegmentEnd`: where its first
 * segment ends). A part of fMP4 segments begins with the initialization section the capture wrote
 * in front of them (an `ftyp` and `moov`, as `#EXT-X-MAP` served it), and the first segment's own
 * bytes begin at its first `moof` (or `styp`, `sidx`…): the section is everything before that.
 */
export async function readPartFormat(readAt: ReadAt, firstSegmentEnd: number): Promise<PartFormat> {
  const head = await readAt(0, 4);
  if (head.length === 4 && new DataView(head.buffer, head.byteOffset).getUint32(0) === EBML_HEADER) return readWebmFormat(readAt, firstSegmentEnd);
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

/**
 * A WebM file (a fragment of a source's WebM track: VP9 or Opus) as its initialization section
 * (the EBML header and the Segment's elements before its first Cluster: Info, Tracks…) and its
 * media (the Clusters), as the WebM byte stream format for Media Source Extensions splits it.
 * Anything else is no format a player is handed in two pieces (`mpegts`: whole).
 */
async function readWebmFormat(readAt: ReadAt, end: number): Promise<PartFormat> {
  let offset = 0;
  for (let elements = 0; elements < MAX_BOXES && offset < end; elements++) {
    const element = readElementHeader(await readAt(offset, 12));
    if (element === null) break;
    if (element.id === WEBM_CLUSTER) return offset > 0 ? { kind: 'webm', initBytes: offset } : { kind: 'mpegts' };
    if (element.id === WEBM_SEGMENT)
      offset += element.headerBytes; // its children follow
    else if (element.size === null) break;
    else offset += element.headerBytes + element.size;
  }
  return { kind: 'mpegts' };
}

/** An EBML element's ID (with its marker bits, as the specifications write IDs), its data size (null: unknown) and the bytes both take. */
function readElementHeader(bytes: Uint8Array): { id: number; size: number | null; headerBytes: number } | null {
  const id = readVint(bytes, 0, 4);
  const size = id === null ? null : readVint(bytes, id.length, 8);
  if (id === null || size === null) return null;
  return { id: id.raw, size: size.unknown ? null : size.value, headerBytes: id.length + size.length };
}

/**
 * An EBML variable-size integer at `at`: its length (leading zero bits + 1), its bytes as read (an
 * element ID keeps its marker bit), its value without the marker (sizes up to 2^53: exact), and
 * whether all value bits are 1 (an unknown size).
 */
function readVint(bytes: Uint8Array, at: number, maxLength: number): { length: number; raw: number; value: number; unknown: boolean } | null {
  const first = bytes[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (length > maxLength || at + length > bytes.length) return null;
  const mask = 0xff >> length;
  let raw = first;
  let value = first & mask;
  let unknown = value === mask;
  for (let i = 1; i < length; i++) {
    const byte = bytes[at + i] as number;
    raw = raw * 256 + byte;
    value = value * 256 + byte;
    unknown &&= byte === 0xff;
  }
  return { length, raw, value, unknown };
}
