import { open, stat } from 'node:fs/promises';
import type { ArchiveStore } from '../../core/archive/ports.js';
import type { ChunkLog, RecordedBytes, Spool } from '../../core/capture/ports.js';

/** A stretch of a part this process can read: a stored chunk, or a chunk file of the spool on this disk. */
type Piece = { part: number; startOffset: number; endOffset: number } & ({ key: string } | { path: string });

interface Deps {
  captures: ChunkLog;
  store: ArchiveStore;
  spool: Spool;
}

/**
 * What a capture recorded, read where it already is: the chunks in the archive store (which cover
 * each part from byte 0), then the spool's chunk files that follow them on this machine — the
 * worker's own when this process shares its data directory (`kura serve`), none on an api of its
 * own. A chunk file may move to the store while it is read about: the spool is listed before the
 * store's chunks (a chunk leaves the spool only after PostgreSQL notes it stored), and a file gone
 * by the time it is opened is read from the store, under the same part and offset. Nothing is
 * opened before the bytes are read, so a request that never reads them holds nothing.
 */
export function createRecordedBytes(deps: Deps): RecordedBytes {
  return {
    async readable(id) {
      const extent = new Map<number, number>();
      for (const piece of await pieces(deps, id)) extent.set(piece.part, piece.endOffset);
      return extent;
    },
    async read(id, part, range) {
      const holding = (await pieces(deps, id)).filter((p) => p.part === part && p.endOffset > range.start && p.startOffset <= range.end);
      if (holding[0] === undefined || holding[0].startOffset > range.start || (holding.at(-1)?.endOffset ?? 0) <= range.end) return null;
      return readPieces(deps, id, holding, range);
    },
  };
}

/** Each part's readable run from byte 0: its stored chunks, then the spool files that follow them. */
async function pieces(deps: Deps, id: string): Promise<Piece[]> {
  const local = await deps.spool.localChunks(id);
  const sized = await Promise.all(
    local.map(async (file) => {
      const size = (await stat(file.path).catch(() => null))?.size ?? 0;
      return { part: file.part, startOffset: file.startOffset, endOffset: file.startOffset + size, path: file.path };
    }),
  );
  const stored = await deps.captures.chunks(id);
  const runs: Piece[] = [];
  for (const part of new Set([...stored, ...sized].map((p) => p.part))) {
    let covered = 0;
    for (const piece of [...stored.filter((c) => c.part === part), ...sized.filter((l) => l.part === part)]) {
      if (piece.startOffset !== covered || piece.endOffset <= covered) continue;
      runs.push(piece);
      covered = piece.endOffset;
    }
  }
  return runs;
}

async function* readPieces(deps: Deps, id: string, holding: readonly Piece[], range: { start: number; end: number }): AsyncIterable<Uint8Array> {
  for (const piece of holding) {
    const start = Math.max(range.start, piece.startOffset) - piece.startOffset;
    const end = Math.min(range.end, piece.endOffset - 1) - piece.startOffset;
    const file = 'path' in piece ? await open(piece.path, 'r').catch(() => null) : null;
    if (file !== null) {
      try {
        yield* file.createReadStream({ start, end, autoClose: false }) as AsyncIterable<Uint8Array>;
      } finally {
        await file.close();
      }
      continue;
    }
    const key = 'key' in piece ? piece.key : (await deps.captures.chunks(id)).find((c) => c.part === piece.part && c.startOffset === piece.startOffset)?.key;
    if (key === undefined) throw new Error(`part ${piece.part} of ${id} from byte ${piece.startOffset} left the spool but is not stored`);
    yield* (await deps.store.read(key, { start, end })) as AsyncIterable<Uint8Array>;
  }
}
