import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { wakeEvery, wakeWhenDue } from '../../src/shared/wake-ups.js';

// The process's shared wake-ups on a fake clock: chores of one, two and five minutes and the
// backstops of an idle process run in one wake-up a minute, not one each.
beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
afterEach(() => void vi.useRealTimers());

/** The times (ms from the first wake-up asked for) at which each named wake-up ran, and the times the process woke. */
function recorder() {
  const start = performance.now();
  const ran = new Map<string, number[]>();
  const woke = new Set<number>();
  const mark = (name: string) => () => {
    const at = Math.round(performance.now() - start);
    ran.set(name, [...(ran.get(name) ?? []), at]);
    woke.add(at);
  };
  return { ran, woke, mark };
}

describe('the shared wake-ups', () => {
  it('run the chores of one, two and five minutes, begun at different times, in the same wake-up', async () => {
    const { ran, woke, mark } = recorder();
    const cancels = [wakeEvery(60_000, mark('sweep'))];
    await vi.advanceTimersByTimeAsync(7_300);
    cancels.push(wakeEvery(120_000, mark('maintenance')));
    await vi.advanceTimersByTimeAsync(21_100);
    cancels.push(wakeEvery(300_000, mark('index')));
    await vi.advanceTimersByTimeAsync(600_000 - 28_400);

    expect(ran.get('sweep')).toEqual([60_000, 120_000, 180_000, 240_000, 300_000, 360_000, 420_000, 480_000, 540_000, 600_000]);
    expect(ran.get('maintenance')).toEqual([120_000, 240_000, 360_000, 480_000, 600_000]);
    expect(ran.get('index')).toEqual([300_000, 600_000]);
    expect(woke.size).toBe(10); // ten minutes, ten wake-ups
    for (const cancel of cancels) cancel();
  });

  it('bring a backstop of a minute or more to the last whole minute before its time, and keep a short one exact', async () => {
    const { ran, mark } = recorder();
    const minute = wakeEvery(60_000, mark('minute'));
    await vi.advanceTimersByTimeAsync(100_000);
    wakeWhenDue(Infinity, 300_000, mark('backstop')); // nothing due: the backstop, by 400 s, comes at 360 s with the minute's chores
    wakeWhenDue(15_000, 300_000, mark('lease end')); // due before the backstop (a lease's end): exact
    await vi.advanceTimersByTimeAsync(400_000);

    expect(ran.get('backstop')).toEqual([360_000]);
    expect(ran.get('lease end')).toEqual([115_000]);
    expect(ran.get('minute')).toContain(360_000);
    minute();
  });

  it('run nothing cancelled, and nothing more of a periodic one once it is cancelled', async () => {
    const { ran, mark } = recorder();
    const cancelOnce = wakeWhenDue(Infinity, 120_000, mark('backstop'));
    const cancelEvery = wakeEvery(60_000, mark('chore'));
    cancelOnce();
    await vi.advanceTimersByTimeAsync(130_000);
    cancelEvery();
    await vi.advanceTimersByTimeAsync(600_000);

    expect(ran.get('backstop')).toBeUndefined();
    expect(ran.get('chore')).toEqual([60_000, 120_000]);
    expect(vi.getTimerCount()).toBe(0); // nothing pending: no timer left to wake the process
  });
});
