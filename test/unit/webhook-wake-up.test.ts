import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChangeFeed } from '../../src/shared/change-feed.js';
import { startWebhookWakeUp } from '../../src/jobs/loops/webhook-wake-up.js';

// The webhook wake-up loop on a fake clock: a drain is asked for at each event and at start, and its
// backstop asks only when a delivery is due (an idle archive's backstop sends no job).
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
  vi.setSystemTime(new Date('2026-11-27T12:00:00Z'));
});
afterEach(() => vi.useRealTimers());

function loop(nextDueAt: () => Date | null) {
  const asked: string[] = [];
  let listener: (payload?: string) => void = () => undefined;
  const feed: ChangeFeed = { connected: true, onChange: (l) => void (listener = l) };
  const stop = startWebhookWakeUp(
    {
      jobs: { deliverWebhooks: async () => void asked.push(new Date().toISOString().slice(11, 16)) },
      webhooks: { deps: { webhooks: { nextDueAt: async () => nextDueAt() } } },
      log: { info: () => undefined, warn: () => undefined },
    },
    { feed, everySeconds: 600 },
  );
  return { asked, event: () => listener('event'), stop };
}

describe('the webhook wake-up', () => {
  it('asks for a drain at start and at each event, and its backstop only when a delivery is due', async () => {
    let due: Date | null = null;
    const { asked, event, stop } = loop(() => due);
    expect(asked).toEqual(['12:00']);
    event();
    expect(asked).toEqual(['12:00', '12:00']);
    await vi.advanceTimersByTimeAsync(600_000); // nothing undelivered: no drain
    due = new Date('2026-11-27T12:35:00Z'); // a retry later than the next look: its drain is queued for it
    await vi.advanceTimersByTimeAsync(600_000);
    expect(asked).toEqual(['12:00', '12:00']);
    await vi.advanceTimersByTimeAsync(1_200_000); // 12:40: overdue, its drain lost
    expect(asked).toEqual(['12:00', '12:00', '12:40']);
    stop();
    await vi.advanceTimersByTimeAsync(600_000);
    event();
    expect(asked).toEqual(['12:00', '12:00', '12:40']);
  });
});
