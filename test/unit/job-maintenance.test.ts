import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startJobMaintenanceLoop } from '../../src/jobs/runtime/job-maintenance.js';

// The job-maintenance loop on a fake clock: pg-boss's upkeep at start and every two minutes, never
// two runs at once in a worker, and a stop that waits for the run in flight (the queue closes after).
beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
afterEach(() => void vi.useRealTimers());

describe('the job maintenance', () => {
  it('runs at start and on its timer, one run at a time, and its stop waits for the run in flight', async () => {
    const runs: Array<() => void> = [];
    const warnings: string[] = [];
    const stop = startJobMaintenanceLoop(
      {
        jobs: { maintain: () => new Promise<void>((resolve) => runs.push(resolve)) },
        log: { info: () => undefined, warn: (_f, message) => warnings.push(message) },
      },
      { everySeconds: 120 },
    );
    expect(runs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(120_000); // the first is still going: the tick waits for it
    expect(runs).toHaveLength(1);
    runs[0]!();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(runs).toHaveLength(2);
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(600_000);
    expect(stopped).toBe(false);
    expect(runs).toHaveLength(2); // no run after the stop
    runs[1]!();
    await stopping;
    expect(warnings).toEqual([]);
  });
});
