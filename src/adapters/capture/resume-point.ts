import { rm, stat, truncate } from 'node:fs/promises';
import type { Capture, StoredSegment } from '../../core/capture/capture.js';
import type { ChunkLog, PartLog, SegmentLog, Spool } from '../../core/capture/ports.js';
import type { SealedChunk } from './chunk-uploader.js';

/** Where a resumed capture goes on. */
export interface ResumePoint {
  part: number;
  /** Bytes of `part` kept: recording appends from here. */
  offset: number;
  /** Local chunks of bytes kept but not yet uploaded, in order. */
  toUpload: SealedChunk[];
  /** The local chunk ending at `offset`, to append to; null to start a new one there. */
  appendTo: SealedChunk | null;
  /** The first segment forgotten because its bytes were neither stored nor on this disk. */
  rewoundTo: StoredSegment | null;
}

/**
 * Finds how far a capture's recorded bytes really exist — in the archive store (its chunks,
 * which always start at byte 0 of a part and follow each other) and then in chunk files on this
 * disk — and forgets recorded segments past that point, so they are fetched again while the
 * source still lists them (or become gaps). Never writes past a hole. Bytes written after the
 * last recorded segment (a crash between the write and the commit) are cut; local files not
 * kept are deleted.
 */
export async function findResumePoint(deps: { captures: PartLog & SegmentLog & ChunkLog; spool: Spool }, capture: Capture): Promise<ResumePoint> {
  const id = capture.livestreamId;
  const [stored, local, parts] = await Promise.all([deps.captures.chunks(id), deps.spool.localChunks(id), deps.captures.parts(id)]);
  const sized = await Promise.all(local.map(async (l): Promise<SealedChunk> => ({ ...l, endOffset: l.startOffset + (await stat(l.path)).size })));
  const kept: SealedChunk[] = [];
  let rewoundTo: StoredSegment | null = null;
  for (const { part, bytes } of parts) {
    let covered = 0;
    for (const c of stored) if (c.part === part && c.startOffset === covered) covered = c.endOffset;
    for (const l of sized) {
      if (l.part !== part || l.startOffset !== covered || l.endOffset === covered) continue;
      kept.push({ ...l, endOffset: Math.min(l.endOffset, bytes) });
      covered = l.endOffset;
    }
    if (covered < bytes) {
      rewoundTo = await deps.captures.firstSegmentPast(id, part, covered);
      break;
    }
  }
  if (rewoundTo !== null) await deps.captures.rewind(id, rewoundTo.sequence, rewoundTo.part);
  const part = rewoundTo?.part ?? capture.currentPart;
  const offset = (await deps.captures.lastSegmentOfPart(id, part))?.endOffset ?? 0;

  const inUse = kept
    .filter((l) => l.part < part || (l.part === part && l.startOffset < offset))
    .map((l) => (l.part === part ? { ...l, endOffset: Math.min(l.endOffset, offset) } : l));
  for (const l of sized) if (!inUse.some((k) => k.path === l.path)) await rm(l.path, { force: true });
  for (const l of inUse) {
    const size = l.endOffset - l.startOffset;
    if ((await stat(l.path)).size !== size) await truncate(l.path, size);
  }
  const last = inUse.at(-1);
  const appendTo = last !== undefined && last.part === part && last.endOffset === offset ? last : null;
  return { part, offset, toUpload: appendTo === null ? inUse : inUse.slice(0, -1), appendTo, rewoundTo };
}
