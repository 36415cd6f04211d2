import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ArchiveStore, HeadLastWriter, StoredObject } from '../../core/archive/ports.js';

/** Archives on local disk under `root`; a key is a relative path. Writes land whole or not at all. */
export function createFsStore(root: string): ArchiveStore {
  const pathOf = (key: string) => {
    const full = path.resolve(root, key);
    if (!full.startsWith(`${path.resolve(root)}${path.sep}`)) throw new Error(`object key escapes the archive: ${key}`);
    return full;
  };
  return {
    async put(key, localPath) {
      return writeWhole(pathOf(key), [], localPath);
    },
    async beginHeadLast(key) {
      return fsHeadLastWriter(pathOf(key));
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
      const file = pathOf(key);
      await rm(file, { force: true });
      // folders left empty go too (a finished capture's chunks): up to the root, never past a non-empty one
      for (let dir = path.dirname(file); dir !== path.resolve(root); dir = path.dirname(dir)) {
        if (
          !(await rmdir(dir).then(
            () => true,
            () => false,
          ))
        )
          break;
      }
    },
  };
}

/**
 * Writes `head` then the file at `bodyPath` to `target`, hashing on the way (one read of the
 * body): fsynced before the name appears, so the key exists only once the object is complete.
 */
async function writeWhole(target: string, head: readonly Buffer[], bodyPath: string): Promise<StoredObject> {
  await mkdir(path.dirname(target), { recursive: true });
  const temporary = `${target}.partial`;
  const hash = createHash('sha256');
  const out = createWriteStream(temporary);
  for (const bytes of head) {
    hash.update(bytes);
    out.write(bytes);
  }
  await pipeline(hashed(createReadStream(bodyPath), hash), out);
  const written = await open(temporary, 'r+');
  await written.sync().finally(() => written.close());
  await rename(temporary, target);
  return { bytes: (await stat(target)).size, sha256: hash.digest('hex') };
}

function hashed(stream: NodeJS.ReadableStream, hash: Hash): NodeJS.ReadableStream {
  stream.on('data', (chunk: Buffer) => hash.update(chunk));
  return stream;
}

/** The media goes to a file beside the target; `complete` writes the head and copies the media after it. */
async function fsHeadLastWriter(target: string): Promise<HeadLastWriter> {
  await mkdir(path.dirname(target), { recursive: true });
  const mediaPath = `${target}.media.partial`;
  const media = await open(mediaPath, 'w');
  let closed = false;
  const close = async () => {
    if (!closed) await media.close();
    closed = true;
  };
  return {
    async writeMedia(bytes) {
      await media.write(bytes);
    },
    async complete(head) {
      await close();
      const stored = await writeWhole(target, [head], mediaPath);
      await rm(mediaPath, { force: true });
      return stored;
    },
    async abort() {
      await close();
      await rm(mediaPath, { force: true });
      await rm(`${target}.partial`, { force: true });
    },
  };
}
