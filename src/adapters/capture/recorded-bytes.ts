import { open, stat, type FileHandle } from 'node:fs/promises';
import type { ArchiveStore } from '../../core/archive/ports.js';
import type { ChunkLog, RecordedBytes, Spool } from '../../core/capture/ports.js';

/** A stretch of a part this process can read: a stored chunk, or a chunk file of the spool on this disk. */
type Piece = { part: number; startOffset: number; endOffset: number } & ({ key: string } | { path: string });

/**
 * What a capture recorded, read where it already is: the chunks in the archive store (which cover
 * each part from byte 0), then the spool's chunk files that follow them on this machine — the
 * worker's own when this process shares its data directory (`kura serve`), none on an api of its
 * own. A chunk file moves to the store while it is read about: the spool is listed before the
 * store's chunks (a chunk leaves the spool only after PostgreSQL notes it stored), and a file gone
 * by the time it is opened is looked up again once.
 */
export function createRecordedBytes(deps: { captures: ChunkLog; store: ArchiveStore; spool: Spool }): RecordedBytes {
  async function pieces(id: string): Promise<Piece[]> {
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

  /** Opens the pieces holding `range` of `part`: null when they do not cover it, 'moved' when a spool file left meanwhile. */
  async function openRange(id: string, part: number, range: { start: number; end: number }) {
    const holding = (await pieces(id)).filter((p) => p.part === part && p.endOffset > range.start && p.startOffset <= range.end);
    if (holding[0] === undefined || holding[0].startOffset > range.start || (holding.at(-1)?.endOffset ?? 0) <= range.end) return null;
    const opened: Array<{ piece: Piece; file: FileHandle | null }> = [];
    for (const piece of holding) {
      if (!('path' in piece)) {
        opened.push({ piece, file: null });
        continue;
      }
      const file = await open(piece.path, 'r').catch(() => null);
      if (file === null) {
        await Promise.all(opened.map((o) => o.file?.close()));
        return 'moved' as const;
      }
      opened.push({ piece, file });
    }
    return opened;
  }

  return {
    async readable(id) {
      const extent = new Map<number, number>();
      for (const piece of await pieces(id)) extent.set(piece.part, piece.endOffset);
      return extent;
    },
    async read(id, part, range) {
      let opened = await openRange(id, part, range);
      if (opened === 'moved') opened = await openRange(id, part, range);
      if (opened === null || opened === 'moved') return null;
      return readAll(deps.store, opened, range);
    },
  };
}

async function* readAll(store: ArchiveStore, opened: Array<{ piece: Piece; file: FileHandle | null }>, range: { start: number; end: number }) {
  try {
    for (const { piece, file } of opened) {
      const start = Math.max(range.start, piece.startOffset) - piece.startOffset;
      const end = Math.min(range.end, piece.endOffset - 1) - piece.startOffset;
      if (file !== null) yield* file.createReadStream({ start, end, autoClose: false }) as AsyncIterable<Uint8Array>;
      else yield* (await store.read((piece as { key: string }).key, { start, end })) as AsyncIterable<Uint8Array>;
    }
  } finally {
    await Promise.all(opened.map((o) => o.file?.close()));
  }
}
