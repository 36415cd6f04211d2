import { mkdir, rm, statfs, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Spool } from '../../core/ports.js';

/**
 * Capture working files under `root` (`$KURA_DATA_DIR/spool`), one folder per livestream. A part
 * file holds segments as the source sent them (MPEG-TS, or fragmented MP4 after its
 * initialization section), so it has no extension: ffmpeg recognises either by content.
 */
export function createSpool(root: string): Spool {
  return {
    partPath: (id, part) => path.join(root, id, `part-${String(part).padStart(4, '0')}`),
    workPath: (id, name) => path.join(root, id, name),
    async writeFile(id, name, content) {
      const file = path.join(root, id, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      return file;
    },
    async remove(id) {
      await rm(path.join(root, id), { recursive: true, force: true });
    },
  };
}

/** Free bytes on the filesystem holding `dir` (or its nearest existing parent). */
export async function freeBytes(dir: string): Promise<number> {
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      const info = await statfs(current);
      return info.bavail * info.bsize;
    } catch (error) {
      if (path.dirname(current) === current) throw error;
    }
  }
}
