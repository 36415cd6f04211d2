// Decisions: docs/decisions/0036-chunks-to-store-and-resume.md
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, mkdir, open, readdir, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { ArchiveStore, LocalFileWriter, StoredObject } from '../../core/archive/ports.js';

/** Archives on local disk under `root`; a key is a relative path. Writes land whole or not at all. */
export function createFsStore(root: string): ArchiveStore {
  const pathOf = (key: string) => {
    const full = path.resolve(root, key);
    if (!full.startsWith(`${path.resolve(root)}${path.sep}`)) throw new Error(`object key escapes the archive: ${key}`);
    return full;
  };
  return {
    async put(key, localPath) {
      return writeWhole(pathOf(key), localPath);
    },
    async beginWrite(key) {
      return localFileWriter(pathOf(key));
    },
    localPath: (key) => pathOf(key),
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
 * Stores the file at `bodyPath` as `target` without copying it where it can: a hard link (the
 * spool and the archive root share a filesystem by default; the local name stays until the caller
 * removes it, so a crash before that loses nothing), else a copy under a temporary name, fsynced
 * and renamed. Either way the name appears only once the whole object is durable.
 */
async function writeWhole(target: string, bodyPath: string): Promise<{ bytes: number }> {
  await mkdir(path.dirname(target), { recursive: true });
  const temporary = `${target}.partial`;
  await rm(temporary, { force: true }); // left by a put cut short
  const body = await open(bodyPath, 'r');
  try {
    await body.sync(); // its bytes durable before any name of the store points at them
  } finally {
    await body.close();
  }
  try {
    await link(bodyPath, temporary);
  } catch (error) {
    if (!['EXDEV', 'EPERM', 'EMLINK'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    await copyFile(bodyPath, temporary);
    const copy = await open(temporary, 'r+');
    await copy.sync().finally(() => copy.close());
  }
  await rename(temporary, target);
  await syncFolder(path.dirname(target));
  return { bytes: (await stat(target)).size };
}

/** Makes a rename or a new name in `folder` durable. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  await handle.sync().finally(() => handle.close());
}

/**
 * A file written whole beside `target` (under a name of its own: a writer cut by a crash may still
 * be writing its file), hashed, fsynced and renamed by `complete`. What earlier writers of the same
 * object left is removed first.
 */
async function localFileWriter(target: string): Promise<LocalFileWriter> {
  await mkdir(path.dirname(target), { recursive: true });
  const leftover = `${path.basename(target)}.`;
  for (const name of await readdir(path.dirname(target))) {
    if (name.startsWith(leftover) && name.endsWith('.partial')) await rm(path.join(path.dirname(target), name), { force: true });
  }
  const temporary = `${target}.${randomBytes(6).toString('hex')}.partial`;
  return {
    kind: 'local-file',
    path: temporary,
    async complete() {
      const file = await open(temporary, 'r+');
      const measured = await measureFile(file).finally(async () => {
        await file.sync();
        await file.close();
      });
      await rename(temporary, target);
      return measured;
    },
    async abort() {
      await rm(temporary, { force: true });
    },
  };
}

const HASH_STEP = 1024 * 1024;

/** Size and sha256 of an open file, read in one reused buffer (a stream allocates per read, and costs twice the CPU). */
async function measureFile(file: FileHandle): Promise<StoredObject> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(HASH_STEP);
  let bytes = 0;
  for (;;) {
    const { bytesRead } = await file.read(buffer, 0, HASH_STEP, bytes);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    bytes += bytesRead;
  }
  return { bytes, sha256: hash.digest('hex') };
}
