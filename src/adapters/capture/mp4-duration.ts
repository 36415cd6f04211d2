import { open, type FileHandle } from 'node:fs/promises';

/** Boxes looked at per level: ftyp, free, moov lead a faststart file; moov holds mvhd and one trak per stream. */
const MAX_BOXES = 64;

interface Box {
  type: string;
  /** Where the box's content starts and where the box ends. */
  start: number;
  end: number;
}

/**
 * The duration an MP4's movie header (`moov/mvhd`) states, in seconds rounded to microseconds —
 * for a non-fragmented MP4 exactly what ffprobe reports as the format duration (libavformat takes
 * it from mvhd). Reading a few header bytes costs nothing next to starting ffprobe. Null when the
 * file has no readable mvhd (fragmented, truncated, not an MP4): the caller asks ffprobe then.
 */
export async function mp4Duration(file: string): Promise<number | null> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const moov = (await readBoxes(handle, 0, size)).find((box) => box.type === 'moov');
    if (moov === undefined) return null;
    const children = await readBoxes(handle, moov.start, moov.end);
    const mvhd = children.find((box) => box.type === 'mvhd');
    // fragmented (mvex): libavformat does not trust mvhd there, and neither do we
    if (mvhd === undefined || children.some((box) => box.type === 'mvex')) return null;
    return await readMvhdDuration(handle, mvhd);
  } finally {
    await handle.close();
  }
}

/** The boxes from `from` to `to`, at most MAX_BOXES, stopping at the first unreadable header. */
async function readBoxes(handle: FileHandle, from: number, to: number): Promise<Box[]> {
  const boxes: Box[] = [];
  for (let offset = from; boxes.length < MAX_BOXES && offset + 8 <= to; ) {
    const box = await readBoxHeader(handle, offset, to);
    if (box === null) break;
    boxes.push(box);
    offset = box.end;
  }
  return boxes;
}

async function readBoxHeader(handle: FileHandle, offset: number, limit: number): Promise<Box | null> {
  const header = Buffer.alloc(16);
  const { bytesRead } = await handle.read(header, 0, 16, offset);
  if (bytesRead < 8) return null;
  let size = header.readUInt32BE(0);
  let headerSize = 8;
  if (size === 1) {
    if (bytesRead < 16) return null;
    size = Number(header.readBigUInt64BE(8)); // a 64-bit size follows the type
    headerSize = 16;
  } else if (size === 0) {
    size = limit - offset; // the box runs to the end of its parent
  }
  if (size < headerSize || offset + size > limit) return null;
  return { type: header.toString('latin1', 4, 8), start: offset + headerSize, end: offset + size };
}

/** mvhd: version (1 byte), flags (3), creation and modification times, timescale, duration. */
async function readMvhdDuration(handle: FileHandle, mvhd: Box): Promise<number | null> {
  const body = Buffer.alloc(32);
  const { bytesRead } = await handle.read(body, 0, Math.min(32, mvhd.end - mvhd.start), mvhd.start);
  const version = body.readUInt8(0);
  if (version > 1 || bytesRead < (version === 1 ? 32 : 20)) return null;
  const timescale = version === 1 ? body.readUInt32BE(20) : body.readUInt32BE(12);
  const duration = version === 1 ? body.readBigUInt64BE(24) : BigInt(body.readUInt32BE(16));
  const unknown = version === 1 ? 0xffffffffffffffffn : 0xffffffffn;
  if (timescale === 0 || duration === 0n || duration === unknown) return null;
  // as libavformat: rescaled to microseconds, rounded to the nearest
  return Math.round((Number(duration) * 1e6) / timescale) / 1e6;
}
