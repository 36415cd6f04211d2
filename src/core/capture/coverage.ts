/*
 * Which bytes of a capture exist, and where: the one place that decides it (pure; the adapters
 * list the chunks, size the local files and do the reads).
 *
 * Glossary of the capture path, one name per concept:
 * - segment: an HLS media segment of the source (a media sequence number). Recorded, its bytes
 *   end its part at its `endOffset` (capture_segments); lost, it falls in a gap.
 * - part: one playable byte stream a capture writes, numbered from 1: MPEG-TS, or fragmented MP4
 *   behind its initialization section. A discontinuity or a new initialization section starts the
 *   next part; finalize joins the parts into the archive. A part's length is its last recorded
 *   segment's end.
 * - offset: a byte position in a part, from 0. A chunk or segment spans [startOffset, endOffset);
 *   a read range `{ start, end }` is inclusive, as HTTP ranges are.
 * - chunk: bytes [startOffset, endOffset) of one part, as kept somewhere:
 *   - local chunk: a file in the spool of the worker's disk, named by part and start offset. The
 *     chunk writer appends to one at a time; it is sealed (complete) once it holds enough, then
 *     uploaded. Its end is the size of its file (`SizedLocalChunk`).
 *   - stored chunk: an object in the archive store, noted in capture_chunks once uploaded, so any
 *     worker can resume the capture; deleted once the archive is stored.
 * - spool: a worker's local working folder for captures: local chunks and finalize's work files.
 * - run: the chunks of a part that hold its bytes from byte 0 with no hole: stored chunks first,
 *   then the local chunks that continue them. Its `end` is how many bytes of the part exist.
 * - read plan: the reads (chunk, offset in the chunk, length) that give a range of a part's bytes.
 * - resume point: the part and offset a resumed capture appends at, with what its local chunks
 *   become (uploaded, appended to, cut, deleted).
 */
import type { CapturePart, ChunkSpan, StoredChunk } from './capture.js';
import type { SizedLocalChunk } from './ports.js';

/** A part's run: its chunks from byte 0, each starting where the one before ended; `end` is how many bytes of the part they hold. */
export interface ChunkRun<C extends ChunkSpan> {
  chunks: C[];
  end: number;
}

/**
 * The run of `part`: from byte 0, a chunk joins when it starts where the run ends and adds bytes
 * to it. Stored chunks come first, then local chunks, each in offset order: stored chunks form a
 * prefix of a part (they are uploaded in order), so a local chunk at the offset of a stored one is
 * a leftover (deleted after its upload was noted, or another worker's) and the stored one is the
 * truth. A chunk overlapping the run, empty, or after a hole is left out; after a hole the run ends.
 * Once the run reaches `length` (the part's recorded length, when known) no chunk joins; the last
 * one may reach past it (bytes written after the last recorded segment).
 */
export function runOf<S extends ChunkSpan, L extends ChunkSpan = never>(
  part: number,
  stored: readonly S[],
  local: readonly L[] = [],
  length = Number.POSITIVE_INFINITY,
): ChunkRun<S | L> {
  const chunks: Array<S | L> = [];
  let end = 0;
  for (const chunk of [...inOffsetOrder(part, stored), ...inOffsetOrder(part, local)]) {
    if (end >= length) break;
    if (chunk.startOffset !== end || chunk.endOffset <= end) continue;
    chunks.push(chunk);
    end = chunk.endOffset;
  }
  return { chunks, end };
}

function inOffsetOrder<C extends ChunkSpan>(part: number, chunks: readonly C[]): C[] {
  return chunks.filter((chunk) => chunk.part === part).sort((a, b) => a.startOffset - b.startOffset);
}

/** How many bytes of each part, from byte 0, the chunks hold (see runOf); a part they hold no byte 0 of is absent. */
export function readableEnds(stored: readonly ChunkSpan[], local: readonly ChunkSpan[]): Map<number, number> {
  const ends = new Map<number, number>();
  for (const part of new Set([...stored, ...local].map((chunk) => chunk.part))) {
    const { end } = runOf(part, stored, local);
    if (end > 0) ends.set(part, end);
  }
  return ends;
}

/** One read of a read plan: `length` bytes of `chunk` from `offset`, counted from the chunk's first byte. */
export interface ChunkRead<C extends ChunkSpan> {
  chunk: C;
  offset: number;
  length: number;
}

/**
 * The reads that give bytes `range.start` to `range.end` (inclusive) of a part from its run, in
 * order: null when the run does not hold all of them (nothing of it is read then). An empty range
 * (`end` one before `start`) needs no read.
 */
export function readPlan<C extends ChunkSpan>(run: readonly C[], range: { start: number; end: number }): ChunkRead<C>[] | null {
  if (range.start < 0 || range.end < range.start - 1) return null;
  if (range.end < range.start) return [];
  const reads: ChunkRead<C>[] = [];
  let next = range.start;
  for (const chunk of run) {
    if (chunk.endOffset <= next || chunk.startOffset > range.end) continue;
    if (chunk.startOffset > next) return null;
    const last = Math.min(range.end, chunk.endOffset - 1);
    reads.push({ chunk, offset: next - chunk.startOffset, length: last - next + 1 });
    next = last + 1;
  }
  return next > range.end ? reads : null;
}

/** How finalize reads a part: its stored chunks, how many bytes the first holds, and their local files when they hold the part exactly. */
export interface StoredPart {
  chunks: StoredChunk[];
  firstChunkBytes: number;
  /** The stored chunks' files on this machine (`localPath`), in order, when every one has one and they end at the part's end; else null. */
  files: string[] | null;
}

/**
 * The stored chunks that hold `part` from byte 0 (the capture ends only once every chunk is
 * stored), and their files when the store keeps them on this machine (an fs store; an S3 one has
 * none). Throws when they do not reach the part's end: never a short archive.
 */
export function storedPart(part: Pick<CapturePart, 'part' | 'bytes'>, stored: readonly StoredChunk[], localPath: (key: string) => string | null): StoredPart {
  const run = runOf(part.part, stored, [], part.bytes);
  if (run.end < part.bytes) throw new Error(`part ${part.part} is stored up to byte ${run.end} of ${part.bytes}: its chunks are missing`);
  const files = run.chunks.map((chunk) => localPath(chunk.key));
  const first = run.chunks[0];
  return {
    chunks: run.chunks,
    firstChunkBytes: first === undefined ? 0 : first.endOffset - first.startOffset,
    files: run.end === part.bytes && files.every((file) => file !== null) ? (files as string[]) : null,
  };
}

/** What of a capture's recorded bytes still exists, for its resume (see keptRecording). */
export interface KeptRecording {
  /** The local chunks holding recorded bytes past the stored ones, in order, each cut at its part's length. */
  kept: SizedLocalChunk[];
  /** The first part whose recorded bytes do not all exist, and how many of them do: the segments past that are fetched again. Null when all exist. */
  shortOf: { part: number; offset: number } | null;
}

/**
 * How far each part's recorded bytes (`parts`, in part order) exist: its run of stored then local
 * chunks up to its length. Stops at the first part they fall short of; the local chunks of later
 * parts are not kept (the capture is rewound into that part).
 */
export function keptRecording(
  parts: ReadonlyArray<Pick<CapturePart, 'part' | 'bytes'>>,
  stored: readonly ChunkSpan[],
  local: readonly SizedLocalChunk[],
): KeptRecording {
  const isLocal = new Set<ChunkSpan>(local);
  const kept: SizedLocalChunk[] = [];
  for (const { part, bytes } of [...parts].sort((a, b) => a.part - b.part)) {
    const run = runOf(part, stored, local, bytes);
    for (const chunk of run.chunks.filter((c): c is SizedLocalChunk => isLocal.has(c))) kept.push({ ...chunk, endOffset: Math.min(chunk.endOffset, bytes) });
    if (run.end < bytes) return { kept, shortOf: { part, offset: run.end } };
  }
  return { kept, shortOf: null };
}

/** What a resumed capture does with its local chunks (see resumePlan). */
export interface ResumePlan {
  /** The local chunks it keeps, each with the length its file is cut to, in order: `toUpload`, then `appendTo` if any. */
  inUse: SizedLocalChunk[];
  /** Kept local chunks not yet stored, in order: uploaded. */
  toUpload: SizedLocalChunk[];
  /** The kept local chunk ending at the resume offset, to append to; null to start a new one there. */
  appendTo: SizedLocalChunk | null;
  /** Local chunks holding nothing kept: deleted. */
  toDelete: SizedLocalChunk[];
}

/**
 * What becomes of the local chunks when the capture resumes at `at` (a part and the offset its
 * last recorded segment ends at): the kept ones before that point are uploaded, cut at the offset
 * in its part, the last appended to when it ends exactly there; every other local chunk goes.
 */
export function resumePlan(kept: readonly SizedLocalChunk[], local: readonly SizedLocalChunk[], at: { part: number; offset: number }): ResumePlan {
  const inUse = kept
    .filter((chunk) => chunk.part < at.part || (chunk.part === at.part && chunk.startOffset < at.offset))
    .map((chunk) => (chunk.part === at.part ? { ...chunk, endOffset: Math.min(chunk.endOffset, at.offset) } : chunk));
  const last = inUse.at(-1);
  const appendTo = last !== undefined && last.part === at.part && last.endOffset === at.offset ? last : null;
  return {
    inUse,
    toUpload: appendTo === null ? inUse : inUse.slice(0, -1),
    appendTo,
    toDelete: local.filter((chunk) => !inUse.some((used) => used.path === chunk.path)),
  };
}
