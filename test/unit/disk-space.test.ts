import { statfs } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { diskSpace, rememberedFor } from '../../src/adapters/os/disk-space.js';

afterEach(() => vi.useRealTimers());

describe('reading disk space', () => {
  it('reads the filesystem of the nearest existing parent of a folder not made yet', async () => {
    const { blocks, bsize } = await statfs(os.tmpdir());
    const space = await diskSpace(path.join(os.tmpdir(), 'kura-not-made-yet', 'spool'));
    expect(space.totalBytes).toBe(blocks * bsize);
    expect(space.freeBytes).toBeGreaterThan(0);
    expect(space.freeBytes).toBeLessThanOrEqual(space.totalBytes);
  });

  it('answers a burst of callers from one read, reads again once it is older than its time, and forgets a failed read', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    let reads = 0;
    let fail = false;
    const read = rememberedFor<void, number>(5000, async () => {
      reads += 1;
      if (fail) throw new Error('statfs failed');
      return reads;
    });
    expect(await Promise.all(Array.from({ length: 100 }, () => read()))).toEqual(Array(100).fill(1));
    vi.advanceTimersByTime(4999);
    expect(await read()).toBe(1);
    vi.advanceTimersByTime(1);
    fail = true;
    await expect(read()).rejects.toThrow('statfs failed');
    fail = false;
    expect(await read()).toBe(3); // the failure was not kept for 5 s
    expect(reads).toBe(3);
  });
});
