import type { FileHandle } from 'node:fs/promises';

/** A top-level box of an MP4 file. */
export interface Box {
  type: string;
  offset: number;
  size: number;
  headerSize: number;
}

/**
 * The faststart form of an MP4 whose `moov` follows its media (`ftyp … mdat moov`, as ffmpeg
 * writes it without `+faststart`): `head` is `ftyp`, the `moov` with every chunk offset moved,
 * the boxes that stood between `ftyp` and `mdat`, and the `mdat` header; then the media bytes
 * follow unchanged, read from `media` in the original
 * file. So the media never has to be copied before the head is known — it can be streamed.
 */
export interface FaststartLayout {
  head: Buffer;
  media: { offset: number; length: number };
}

const MAX_U32 = 0xffff_ffff;

export async function faststartLayout(file: FileHandle): Promise<FaststartLayout> {
  const boxes = await topLevelBoxes(file);
  const ftyp = boxes.find((b) => b.type === 'ftyp');
  const mdats = boxes.filter((b) => b.type === 'mdat');
  const moovBox = boxes.find((b) => b.type === 'moov');
  if (ftyp === undefined || moovBox === undefined || mdats.length !== 1) {
    throw new Error(`not a single-mdat MP4 (top-level boxes: ${boxes.map((b) => b.type).join(' ')})`);
  }
  const mdat = mdats[0] as Box;
  if (moovBox.offset < mdat.offset) throw new Error('the moov already precedes the media');
  const ftypBytes = await readAt(file, ftyp.offset, ftyp.size);
  // boxes between ftyp and mdat (ffmpeg's `free` placeholder) stay in front of the mdat, as in
  // ffmpeg's own +faststart output — which this layout then equals byte for byte
  const between = Buffer.concat(
    await Promise.all(boxes.filter((b) => b.offset > ftyp.offset && b.offset < mdat.offset).map((b) => readAt(file, b.offset, b.size))),
  );
  const moov = await readAt(file, moovBox.offset, moovBox.size);
  const media = { offset: mdat.offset + mdat.headerSize, length: mdat.size - mdat.headerSize };
  const mdatHeader = boxHeader('mdat', media.length);

  // converting a 32-bit offset table to 64 bits grows the moov, which moves the media further:
  // repeat until the size holds (it only grows, and at most every table becomes 64-bit)
  let moovSize = moov.length;
  const delta = (size: number) => ftypBytes.length + size + between.length + mdatHeader.length - media.offset;
  let patched = moveChunkOffsets(moov, delta(moovSize));
  while (patched.length !== moovSize) {
    moovSize = patched.length;
    patched = moveChunkOffsets(moov, delta(moovSize));
  }
  return { head: Buffer.concat([ftypBytes, patched, between, mdatHeader]), media };
}

/** Every top-level box, by walking headers only. */
export async function topLevelBoxes(file: FileHandle): Promise<Box[]> {
  const { size: fileSize } = await file.stat();
  const boxes: Box[] = [];
  for (let offset = 0; offset < fileSize;) {
    const header = await readAt(file, offset, Math.min(16, fileSize - offset));
    if (header.length < 8) throw new Error(`truncated box header at ${offset}`);
    let size = header.readUInt32BE(0);
    let headerSize = 8;
    if (size === 1) {
      size = Number(header.readBigUInt64BE(8));
      headerSize = 16;
    } else if (size === 0) {
      size = fileSize - offset;
    }
    if (size < headerSize || offset + size > fileSize) throw new Error(`box at ${offset} runs past the file`);
    boxes.push({ type: header.toString('latin1', 4, 8), offset, size, headerSize });
    offset += size;
  }
  return boxes;
}

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl']);

/**
 * A copy of `moov` whose `stco`/`co64` entries are moved by `delta`; a `stco` whose entries no
 * longer fit 32 bits becomes a `co64` (and every enclosing box grows to match).
 */
export function moveChunkOffsets(moov: Buffer, delta: number): Buffer {
  const rewrite = (box: Buffer): Buffer => {
    const type = box.toString('latin1', 4, 8);
    if (type === 'stco' || type === 'co64') return movedTable(box, type, delta);
    if (!CONTAINERS.has(type)) return box;
    const children: Buffer[] = [];
    for (let offset = 8; offset < box.length;) {
      const size = box.readUInt32BE(offset);
      if (size < 8 || offset + size > box.length) throw new Error(`malformed ${type} child at ${offset}`);
      children.push(rewrite(box.subarray(offset, offset + size)));
      offset += size;
    }
    const body = Buffer.concat(children);
    const header = Buffer.alloc(8);
    header.writeUInt32BE(8 + body.length, 0);
    header.write(type, 4, 'latin1');
    return Buffer.concat([header, body]);
  };
  return rewrite(moov);
}

function movedTable(box: Buffer, type: 'stco' | 'co64', delta: number): Buffer {
  const count = box.readUInt32BE(12);
  const width = type === 'co64' ? 8 : 4;
  const offsets = Array.from({ length: count }, (_, i) =>
    width === 8 ? Number(box.readBigUInt64BE(16 + i * 8)) + delta : box.readUInt32BE(16 + i * 4) + delta,
  );
  const wide = width === 8 || offsets.some((o) => o > MAX_U32);
  const out = Buffer.alloc(16 + count * (wide ? 8 : 4));
  out.writeUInt32BE(out.length, 0);
  out.write(wide ? 'co64' : 'stco', 4, 'latin1');
  box.copy(out, 8, 8, 12); // version and flags
  out.writeUInt32BE(count, 12);
  offsets.forEach((o, i) => (wide ? out.writeBigUInt64BE(BigInt(o), 16 + i * 8) : out.writeUInt32BE(o, 16 + i * 4)));
  return out;
}

function boxHeader(type: string, payloadLength: number): Buffer {
  if (payloadLength + 8 <= MAX_U32) {
    const header = Buffer.alloc(8);
    header.writeUInt32BE(payloadLength + 8, 0);
    header.write(type, 4, 'latin1');
    return header;
  }
  const header = Buffer.alloc(16);
  header.writeUInt32BE(1, 0);
  header.write(type, 4, 'latin1');
  header.writeBigUInt64BE(BigInt(payloadLength + 16), 8);
  return header;
}

/** Up to `length` bytes at `position` (fewer at the end of the file). */
export async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}
