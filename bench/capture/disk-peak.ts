import { allocatedBytes } from '../../test/support/disk-use.js';

/**
 * The largest disk use under `dir` (a worker's spool), measured every `intervalMs` until `stop()`:
 * slower than test/support's 20 ms sampler, so walking a hundred captures' folders does not take
 * the CPU Kura is measured on.
 */
export function sampleDiskPeak(dir: string, intervalMs: number): { stop(): Promise<number> } {
  let peak = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      peak = Math.max(peak, await allocatedBytes(dir));
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await sampling;
      return peak;
    },
  };
}
