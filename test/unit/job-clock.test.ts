import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JOB_SCHEDULES } from '../../src/jobs/catalogue.js';
import type { JobSchedule } from '../../src/jobs/job-definition.js';
import { startJobClock } from '../../src/jobs/runtime/job-clock.js';

// Kura's clock for scheduled jobs, on a fake clock: when each job is sent. That the sends of every
// worker make one job per period is pg-boss's singleton slot: integration/job-schedules.test.ts.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(new Date('2026-05-04T12:00:10Z'));
});
afterEach(() => vi.useRealTimers());

describe("Kura's job clock", () => {
  it('sends verify-archives at :23 and retention at :41 of every hour (UTC), and nothing between', async () => {
    const sent: string[] = [];
    const stop = startJobClock(
      JOB_SCHEDULES,
      async (s: JobSchedule) => void sent.push(`${new Date().toISOString().slice(11, 19)} ${s.name}`),
      (e) => expect.fail(e.message),
    );
    await vi.advanceTimersByTimeAsync(104 * 60_000);
    stop();
    expect(sent).toEqual(['12:23:00 verify-archives', '12:41:00 apply-retention', '13:23:00 verify-archives', '13:41:00 apply-retention']);
  });

  it('sends nothing once stopped, and goes on after a send that failed', async () => {
    const sent: string[] = [];
    const errors: string[] = [];
    const every = [{ name: 'deliver-webhooks', everySeconds: 60, atSecond: 30 }] as const;
    let fail = true;
    const stop = startJobClock(
      every,
      async () => {
        if (fail) {
          fail = false;
          throw new Error('the database is away');
        }
        sent.push(new Date().toISOString().slice(11, 19));
      },
      (e) => errors.push(e.message),
    );
    await vi.advanceTimersByTimeAsync(2 * 60_000);
    stop();
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(errors).toEqual(['the database is away']);
    expect(sent).toEqual(['12:01:30']);
  });
});
