import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Disk blocks allocated under `dir` (holes in sparse files excluded), 0 when it does not exist. */
export async function allocatedBytes(dir: string): Promise<number> {
  return totalOf(await allocatedFiles(dir));
}

const totalOf = (files: Array<{ bytes: number }>) => files.reduce((total, file) => total + file.bytes, 0);

/** Each file under `dir` with the disk blocks it has allocated (holes excluded). */
async function allocatedFiles(dir: string): Promise<Array<{ path: string; bytes: number }>> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files: Array<{ path: string; bytes: number }> = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await allocatedFiles(full)));
    else files.push({ path: full, bytes: ((await stat(full).catch(() => null))?.blocks ?? 0) * 512 });
  }
  return files;
}

/**
 * Measures the disk used under `dir` every 20 ms until `stop()`, which says the largest use seen,
 * what held it (`atPeak`: each file's path under `dir` and bytes, to read in a failure) and how
 * many samples were taken (a measurement, not a wait: nothing waits on it).
 */
export function sampleDiskUse(dir: string): { stop(): Promise<{ peak: number; atPeak: string; samples: number }> } {
  let peak = 0;
  let atPeak = '';
  let samples = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      const files = await allocatedFiles(dir);
      const total = totalOf(files);
      if (total > peak) {
        peak = total;
        atPeak = files.map((file) => `${path.relative(dir, file.path)} ${file.bytes}`).join(', ');
      }
      samples += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await sampling;
      return { peak, atPeak, samples };
    },
  };
}
