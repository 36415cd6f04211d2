// Decisions: docs/decisions/0036-chunks-to-store-and-resume.md
import { open, stat } from 'node:fs/promises';
import type { ArchiveStore } from '../../core/archive/ports.js';
import type { StoredChunk } from '../../core/capture/capture.js';
import { readableEnds, readPlan, runOf, type ChunkRead } from '../../core/capture/coverage.js';
import type { ChunkLog, RecordedBytes, SizedLocalChunk, Spool } from '../../core/capture/ports.js';

interface Deps {
  captures: ChunkLog;
  store: ArchiveStore;
  spool: Spool;
}

/**
 * What a capture recorded, read where it already is: each part's run (coverage.ts) of stored
 * chunks, then the local chunks that follow them on this machine — the worker's own when this
 * process shares its data directory (`kura serve`), none on an api of its own. A local chunk may
 * move to the store while it is read about: the spool is listed before the stored chunks (a local
 * chunk is deleted only after PostgreSQL notes it stored), and a file gone by the time it is
 * opened is read from the store, under the same part and offset. Nothing is opened before the
 * bytes are read, so a request that never reads them holds nothing.
 */
export function createRecordedBytes(deps: Deps): RecordedBytes {
  return {
    async readable(id) {
      const { stored, local } = await listChunks(deps, id);
      return readableEnds(stored, local);
    },
    async read(id, part, range) {
      const { stored, local } = await listChunks(deps, id);
      const plan = readPlan(runOf(part, stored, local).chunks, range);
      return plan === null ? null : readChunks(deps, id, plan);
    },
  };
}

/** The capture's local chunks on this disk, sized (a file gone meanwhile is empty), listed before its stored chunks. */
async function listChunks(deps: Deps, id: string): Promise<{ stored: StoredChunk[]; local: SizedLocalChunk[] }> {
  const listed = await deps.spool.localChunks(id);
  const local = await Promise.all(
    listed.map(async (chunk): Promise<SizedLocalChunk> => ({
      ...chunk,
      endOffset: chunk.startOffset + ((await stat(chunk.path).catch(() => null))?.size ?? 0),
    })),
  );
  return { stored: await deps.captures.chunks(id), local };
}

/** Carries out a read plan: a local chunk from its file, or from the store once it moved there; a stored chunk from the store. */
async function* readChunks(deps: Deps, id: string, plan: ReadonlyArray<ChunkRead<StoredChunk | SizedLocalChunk>>): AsyncIterable<Uint8Array> {
  for (const { chunk, offset, length } of plan) {
    const range = { start: offset, end: offset + length - 1 };
    const file = 'path' in chunk ? await open(chunk.path, 'r').catch(() => null) : null;
    if (file !== null) {
      try {
        yield* file.createReadStream({ ...range, autoClose: false }) as AsyncIterable<Uint8Array>;
      } finally {
        await file.close();
      }
      continue;
    }
    const key = 'key' in chunk ? chunk.key : (await deps.captures.chunks(id)).find((c) => c.part === chunk.part && c.startOffset === chunk.startOffset)?.key;
    if (key === undefined) throw new Error(`part ${chunk.part} of ${id} from byte ${chunk.startOffset} left the spool but is not stored`);
    yield* (await deps.store.read(key, range)) as AsyncIterable<Uint8Array>;
  }
}
