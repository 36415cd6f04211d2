import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WorkerDeps, WorkerSettings } from '../../src/jobs/job-work.js';
import { startLifecycleSweepLoop } from '../../src/jobs/loops/lifecycle-sweep.js';

// The lifecycle-sweep loop on a fake clock: every minute while something is upcoming, live or being
// taken down, every five while nothing is (an idle server's query each minute woke PostgreSQL).
beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
afterEach(() => void vi.useRealTimers());

describe('the lifecycle sweep', () => {
  it('looks every fifth minute while there is nothing to sweep, and every minute once there is', async () => {
    const start = performance.now();
    const looks: number[] = [];
    let anythingToSweep = false;
    const sweep = {
      anythingToSweep: async () => {
        looks.push(Math.round((performance.now() - start) / 60_000));
        return anythingToSweep;
      },
      alone: async () => undefined, // another process sweeps: this one's repairs are not the point here
    };
    const stop = startLifecycleSweepLoop(
      {
        deps: { sweep, captures: { compactLeftovers: async () => 0 } } as unknown as WorkerDeps,
        settings: { workerId: 'w', staleAfterSeconds: 60 } as WorkerSettings,
        log: { info: () => undefined, warn: () => undefined },
      },
      { everySeconds: 60 },
    );
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(looks).toEqual([0, 5, 10]);

    anythingToSweep = true; // a submission: the next look finds it, and the sweep goes on each minute
    await vi.advanceTimersByTimeAsync(7 * 60_000);
    expect(looks).toEqual([0, 5, 10, 15, 16, 17]);
    await stop();
  });
});
