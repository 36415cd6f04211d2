import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Disk blocks allocated under `dir` (holes in sparse files excluded), 0 when it does not exist. */
export async function allocatedBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await allocatedBytes(full);
    else total += ((await stat(full).catch(() => null))?.blocks ?? 0) * 512;
  }
  return total;
}

/**
 * Measures the disk used under `dir` every 20 ms until `stop()`, which says the largest use seen
 * and how many samples were taken (a measurement, not a wait: nothing waits on it).
 */
export function sampleDiskUse(dir: string): { stop(): Promise<{ peak: number; samples: number }> } {
  let peak = 0;
  let samples = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      peak = Math.max(peak, await allocatedBytes(dir));
      samples += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await sampling;
      return { peak, samples };
    },
  };
}
