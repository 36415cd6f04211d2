// Decisions: docs/decisions/0039-finalize-writes-once.md
import { open } from 'node:fs/promises';
import { readAt, topLevelBoxes } from './mp4-faststart.js';

/**
 * The duration of an MP4 as ffprobe reports the format's: the `mvhd` duration over its time scale,
 * in whole microseconds (libavformat's mov demuxer takes it as the file's duration, rounding to
 * nearest, when the file is not fragmented). 0 when the movie has no duration.
 */
export function movieDuration(moov: Buffer): number {
  const mvhd = findBox(moov, 'mvhd', 8);
  if (mvhd === null || mvhd.length < 32) throw new Error('the moov has no mvhd box');
  // size, type, version and flags (12 bytes), then creation and modification times of 4 or 8 bytes each
  const wide = mvhd[8] === 1;
  const timescale = BigInt(mvhd.readUInt32BE(wide ? 28 : 20));
  const duration = wide ? mvhd.readBigUInt64BE(32) : BigInt(mvhd.readUInt32BE(24));
  if (timescale === 0n) return 0;
  // in integers, as libavformat rounds (half away from zero): a double loses microseconds past 104 days
  const microseconds = (duration * 2_000_000n + timescale) / (2n * timescale);
  return Number(microseconds) / 1_000_000;
}

/** The duration of the MP4 that `head` begins (its `ftyp` and `moov` at least: a faststart head). */
export function headDuration(head: Buffer): number {
  const moov = findBox(head, 'moov', 0);
  if (moov === null) throw new Error('the head holds no whole moov box');
  return movieDuration(moov);
}

/** The duration of the MP4 file at `file`. */
export async function fileDuration(file: string): Promise<number> {
  const handle = await open(file, 'r');
  try {
    const moov = (await topLevelBoxes(handle)).find((box) => box.type === 'moov');
    if (moov === undefined) throw new Error(`${file} has no moov box`);
    return movieDuration(await readAt(handle, moov.offset, moov.size));
  } finally {
    await handle.close();
  }
}

/** The first whole box of `type` among those that follow one another from `offset` in `bytes`; null if none. */
function findBox(bytes: Buffer, type: string, offset: number): Buffer | null {
  for (let at = offset; at + 8 <= bytes.length;) {
    const size = bytes.readUInt32BE(at);
    if (size < 8 || at + size > bytes.length) return null;
    if (bytes.toString('latin1', at + 4, at + 8) === type) return bytes.subarray(at, at + size);
    at += size;
  }
  return null;
}
