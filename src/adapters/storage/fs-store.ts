import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ArchiveStore } from '../../core/ports.js';

/** Archives on local disk under `root`; a key is a relative path. Writes land whole or not at all. */
export function createFsStore(root: string): ArchiveStore {
  const pathOf = (key: string) => {
    const full = path.resolve(root, key);
    if (!full.startsWith(`${path.resolve(root)}${path.sep}`)) throw new Error(`object key escapes the archive: ${key}`);
    return full;
  };
  return {
    async put(key, localPath) {
      const target = pathOf(key);
      await mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.partial`;
      // one read of the source: hashed as it is copied
      const hash = createHash('sha256');
      const source = createReadStream(localPath);
      source.on('data', (chunk) => hash.update(chunk));
      await pipeline(source, createWriteStream(temporary));
      const written = await open(temporary, 'r+');
      await written.sync().finally(() => written.close()); // on disk before the key exists
      await rename(temporary, target); // the key appears only once complete
      return { bytes: (await stat(target)).size, sha256: hash.digest('hex') };
    },
    async directUrl() {
      return null; // served by Kura, with Range support
    },
    async stat(key) {
      const info = await stat(pathOf(key)).catch(() => null);
      return info === null ? null : { bytes: info.size };
    },
    async read(key, range) {
      return createReadStream(pathOf(key), range === undefined ? {} : { start: range.start, end: range.end });
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}
