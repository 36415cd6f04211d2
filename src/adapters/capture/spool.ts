// Decisions: docs/decisions/0035-segments-on-disk-first.md
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import path from 'node:path';
import type { LocalChunk, Spool } from '../../core/capture/ports.js';
import { rememberedFor } from '../os/disk-space.js';

const CHUNK_FILE = /^part-(\d{4,})-at-(\d{14,})$/;

/**
 * Capture working files under `root` (`$KURA_DATA_DIR/spool`), one folder per livestream. A local
 * chunk's file holds bytes of a part as the source sent them (MPEG-TS, or fragmented MP4 after its
 * initialization section), named by its part and the part offset it starts at; it has no
 * extension, as ffmpeg recognises either by content.
 */
export function createSpool(root: string): Spool {
  return {
    chunkPath: (id, part, startOffset) => path.join(root, id, `part-${String(part).padStart(4, '0')}-at-${String(startOffset).padStart(14, '0')}`),
    async localChunks(id) {
      const names = await readdir(path.join(root, id)).catch(() => [] as string[]);
      return names
        .map((name) => ({ name, match: CHUNK_FILE.exec(name) }))
        .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null)
        .map(({ name, match }): LocalChunk => ({ part: Number(match[1]), startOffset: Number(match[2]), path: path.join(root, id, name) }))
        .sort((a, b) => a.part - b.part || a.startOffset - b.startOffset);
    },
    workPath: (id, name) => path.join(root, id, name),
    async writeFile(id, name, content) {
      const file = path.join(root, id, name);
      await mkdir(path.dirname(file), { recursive: true });
      // a new file, never the old one rewritten: the fs store may have linked that into the archive
      await rm(file, { force: true });
      await writeFile(file, content);
      return file;
    },
    async writeGzip(id, name, content) {
      const file = path.join(root, id, name);
      await mkdir(path.dirname(file), { recursive: true });
      await rm(file, { force: true });
      await pipeline(Readable.from(content), createGzip(), createWriteStream(file));
      return file;
    },
    async removeFile(id, name) {
      await rm(path.join(root, id, name), { force: true });
    },
    async remove(id) {
      await rm(path.join(root, id), { recursive: true, force: true });
    },
  };
}

/**
 * `read`, answering from its last result while that is younger than a second: every capture's
 * spool folder is on one filesystem, and a statfs per segment and poll of 100 captures was a
 * measurable share of their CPU. A second holds at most a second of the streams past the margin.
 */
export function atMostEverySecond(read: (dir: string) => Promise<number>): (dir: string) => Promise<number> {
  return rememberedFor(1000, read);
}
