// Decisions: docs/decisions/0036-chunks-to-store-and-resume.md
import { rm, stat, truncate } from 'node:fs/promises';
import type { Capture, RecordedSegment } from '../../core/capture/capture.js';
import { keptRecording, resumePlan } from '../../core/capture/coverage.js';
import type { ChunkLog, PartLog, SegmentLog, SizedLocalChunk, Spool } from '../../core/capture/ports.js';
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
  rewoundTo: RecordedSegment | null;
}

/**
 * Finds how far a capture's recorded bytes really exist — its stored chunks, then its local
 * chunks on this disk (keptRecording) — and forgets recorded segments past that point, so they
 * are fetched again while the source still lists them (or become gaps). Never writes past a hole.
 * Bytes written after the last recorded segment (a crash between the write and the commit) are
 * cut; local chunks not kept are deleted (resumePlan).
 */
export async function findResumePoint(deps: { captures: PartLog & SegmentLog & ChunkLog; spool: Spool }, capture: Capture): Promise<ResumePoint> {
  const id = capture.livestreamId;
  const [stored, listed, parts] = await Promise.all([deps.captures.chunks(id), deps.spool.localChunks(id), deps.captures.parts(id)]);
  const local = await Promise.all(
    listed.map(async (chunk): Promise<SizedLocalChunk> => ({ ...chunk, endOffset: chunk.startOffset + (await stat(chunk.path)).size })),
  );
  const { kept, shortOf } = keptRecording(parts, stored, local);
  const rewoundTo = shortOf === null ? null : await deps.captures.firstSegmentPast(id, shortOf.part, shortOf.offset);
  if (rewoundTo !== null) await deps.captures.rewind(id, rewoundTo.sequence, rewoundTo.part);
  const part = rewoundTo?.part ?? capture.currentPart;
  const offset = (await deps.captures.lastSegmentOfPart(id, part))?.endOffset ?? 0;

  const plan = resumePlan(kept, local, { part, offset });
  for (const chunk of plan.toDelete) await rm(chunk.path, { force: true });
  for (const chunk of plan.inUse) {
    const size = chunk.endOffset - chunk.startOffset;
    if ((await stat(chunk.path)).size !== size) await truncate(chunk.path, size);
  }
  return { part, offset, toUpload: plan.toUpload, appendTo: plan.appendTo, rewoundTo };
}
