import { statfs } from 'node:fs/promises';
import path from 'node:path';
import type { DiskSpace } from '../../core/archive/disk-figures.js';

/** The space of the filesystem holding `dir` (or its nearest existing parent): free to an unprivileged writer, and its size. */
export async function diskSpace(dir: string): Promise<DiskSpace> {
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      const info = await statfs(current);
      return { freeBytes: info.bavail * info.bsize, totalBytes: info.blocks * info.bsize };
    } catch (error) {
      if (path.dirname(current) === current) throw error;
    }
  }
}

/**
 * `read`, answering from its last result while that is younger than `ms` (whatever the argument:
 * every caller reads the same place), so a burst of callers costs one read; a failed read is not remembered.
 */
export function rememberedFor<A, T>(ms: number, read: (argument: A) => Promise<T>): (argument: A) => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return (argument) => {
    if (last === null || Date.now() - last.at >= ms) {
      const value = read(argument);
      last = { at: Date.now(), value };
      value.catch(() => last?.value === value && (last = null));
    }
    return last.value;
  };
}

/** Free bytes on the filesystem holding `dir` (or its nearest existing parent). */
export async function freeBytes(dir: string): Promise<number> {
  return (await diskSpace(dir)).freeBytes;
}
