import { describe, expect, it } from 'vitest';
import { createHostPacer } from '../../src/adapters/follows/host-pacer.js';

/** A clock the test moves: `sleep` advances it instead of waiting. */
function testClock() {
  const clock = { at: 0, slept: [] as number[] };
  return Object.assign(clock, {
    now: () => clock.at,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      clock.at += ms;
    },
  });
}

describe('host pacer', () => {
  it('spaces requests to one host 60 s / rate apart, and holds no other host up', async () => {
    const clock = testClock();
    const pacer = createHostPacer({ requestsPerMinute: 60, now: clock.now, sleep: clock.sleep });
    const times: Array<[string, number]> = [];
    for (const host of ['www.youtube.com', 'www.youtube.com', 'holodex.net', 'www.youtube.com']) {
      await pacer.wait(host);
      times.push([host, clock.at]);
    }
    expect(times).toEqual([
      ['www.youtube.com', 0],
      ['www.youtube.com', 1000],
      ['holodex.net', 1000],
      ['www.youtube.com', 2000],
    ]);
  });

  it('gives concurrent waiters successive slots', async () => {
    const clock = testClock();
    const pacer = createHostPacer({ requestsPerMinute: 120, now: clock.now, sleep: (ms) => (clock.slept.push(ms), Promise.resolve()) });
    await Promise.all([pacer.wait('a'), pacer.wait('a'), pacer.wait('a'), pacer.wait('b')]);
    expect(clock.slept).toEqual([500, 1000]);
  });

  it('lets a host asked after a quiet spell go at once', async () => {
    const clock = testClock();
    const pacer = createHostPacer({ requestsPerMinute: 6, now: clock.now, sleep: clock.sleep });
    await pacer.wait('a');
    clock.at += 60_000;
    await pacer.wait('a');
    expect(clock.slept).toEqual([]);
  });

  it("sends its part of the instance's rate when the follows are shared by several workers", async () => {
    const clock = testClock();
    const pacer = createHostPacer({ requestsPerMinute: 60, now: clock.now, sleep: clock.sleep });
    pacer.shareWith(3);
    for (let i = 0; i < 3; i++) await pacer.wait('www.youtube.com');
    expect(clock.at).toBe(6000); // 20 a minute from this worker, 60 from the three
    pacer.shareWith(1);
    await pacer.wait('www.youtube.com');
    await pacer.wait('www.youtube.com');
    expect(clock.at).toBe(10_000); // the slot taken at 3 workers' spacing, then one at 1 s
  });
});
