import { describe, expect, it } from 'vitest';
import { planRetention, type NamedRules, type RetentionCandidate, type RetentionSettings } from '../../src/core/retention/plan-retention.js';
import { changeRules, NO_LIMITS, type RetentionRules } from '../../src/core/retention/retention-rules.js';

const NOW = new Date('2026-11-27T12:00:00Z');
const DAY = 86_400_000;
const GB = 1e9;

/** A finished archive of channel `ch`, `daysAgo` old, of `gb` GB. */
function archive(id: string, daysAgo: number, fields: Partial<RetentionCandidate> = {}): RetentionCandidate {
  return {
    id,
    title: `title ${id}`,
    status: 'finished',
    channelId: 'ch',
    followId: null,
    pinned: false,
    takenDown: false,
    sizeBytes: GB,
    endedAt: new Date(NOW.getTime() - daysAgo * DAY),
    ...fields,
  };
}

const rules = (fields: Partial<RetentionRules>): RetentionRules => ({ ...NO_LIMITS, ...fields });
const settings = (fields: {
  defaults?: Partial<RetentionRules>;
  follows?: Record<string, NamedRules>;
  channels?: Record<string, NamedRules>;
}): RetentionSettings => ({
  defaults: rules(fields.defaults ?? {}),
  follows: new Map(Object.entries(fields.follows ?? {})),
  channels: new Map(Object.entries(fields.channels ?? {})),
});
const removed = (candidates: RetentionCandidate[], s: RetentionSettings) => planRetention(candidates, s, NOW).removals.map((r) => `${r.id}: ${r.reason}`);

describe('the retention plan', () => {
  const five = [archive('a1', 1), archive('a2', 2), archive('a3', 3), archive('a4', 4), archive('a5', 5)];

  it('keeps everything when no limit is set anywhere', () => {
    expect(planRetention(five, settings({}), NOW)).toEqual({ removals: [], bytes: 0 });
  });

  it('keeps the newest N and says which rule of which set removed the rest', () => {
    expect(removed(five, settings({ defaults: { keepLast: 3 } }))).toEqual([
      'a4: retention: keep the last 3 of the instance default',
      'a5: retention: keep the last 3 of the instance default',
    ]);
  });

  it('removes archives older than D days, and the bytes freed are theirs', () => {
    const plan = planRetention([...five, archive('big', 10, { sizeBytes: 5 * GB })], settings({ defaults: { maxAgeDays: 3 } }), NOW);
    expect(plan.removals.map((r) => r.id)).toEqual(['a4', 'a5', 'big']);
    expect(plan.bytes).toBe(7 * GB);
    expect(plan.removals[0]?.reason).toBe('retention: keep archives younger than 3 days of the instance default');
  });

  it('keeps at most G GB, newest first, and never keeps an older archive after removing a newer one', () => {
    const sized = [archive('n', 1, { sizeBytes: 2 * GB }), archive('big', 2, { sizeBytes: 3 * GB }), archive('small', 3, { sizeBytes: 0.1 * GB })];
    expect(removed(sized, settings({ defaults: { maxGb: 4 } }))).toEqual([
      'big: retention: keep at most 4 GB of the instance default',
      'small: retention: keep at most 4 GB of the instance default',
    ]);
  });

  it('applies every limit of a set together: the first one broken is the reason', () => {
    const plan = removed(five, settings({ defaults: { keepLast: 4, maxAgeDays: 2, maxGb: 10 } }));
    expect(plan).toEqual([
      'a3: retention: keep archives younger than 2 days of the instance default',
      'a4: retention: keep archives younger than 2 days of the instance default',
      'a5: retention: keep the last 4 of the instance default',
    ]);
  });

  it('keeps pinned archives whatever the rules, and does not count them', () => {
    const withPin = [archive('a1', 1), archive('pinned', 2, { pinned: true }), archive('a3', 3), archive('a4', 4)];
    expect(removed(withPin, settings({ defaults: { keepLast: 2, maxAgeDays: 1 } }))).toEqual([
      'a3: retention: keep archives younger than 1 days of the instance default',
      'a4: retention: keep the last 2 of the instance default',
    ]);
  });

  it('never weighs a live, upcoming or failed record, nor one already being taken down', () => {
    const mixed = [
      archive('live', 9, { status: 'live' }),
      archive('queued', 9, { status: 'upcoming' }),
      archive('failed', 9, { status: 'failed' }),
      archive('going', 9, { takenDown: true }),
      archive('old', 9),
    ];
    expect(removed(mixed, settings({ defaults: { keepLast: 0 } }))).toEqual(['old: retention: keep the last 0 of the instance default']);
  });

  it('applies the most specific set: the follow that queued it, else its channel, else the default; N counts within each set', () => {
    const candidates = [
      archive('f1', 1, { followId: 'F', channelId: 'A' }),
      archive('f2', 2, { followId: 'F', channelId: 'A' }),
      archive('a1', 3, { channelId: 'A' }),
      archive('a2', 4, { channelId: 'A' }),
      archive('a3', 5, { channelId: 'A' }),
      archive('b1', 6, { channelId: 'B' }),
      archive('b2', 7, { channelId: 'B' }),
      // a follow without a limit falls through to its channel
      archive('g1', 8, { followId: 'G', channelId: 'A' }),
    ];
    const s = settings({
      defaults: { keepLast: 1 },
      follows: { F: { name: 'follow Ina', rules: rules({ keepLast: 5 }) }, G: { name: 'follow Gura', rules: NO_LIMITS } },
      channels: { A: { name: 'channel Ame', rules: rules({ keepLast: 2 }) } },
    });
    expect(removed(candidates, s)).toEqual([
      'a3: retention: keep the last 2 of channel Ame',
      'g1: retention: keep the last 2 of channel Ame',
      'b2: retention: keep the last 1 of the instance default',
    ]);
  });

  it('refuses limits that are not whole numbers of 0 or more', () => {
    expect(() => changeRules(NO_LIMITS, { keepLast: 1.5 })).toThrow(expect.objectContaining({ code: 'invalid_retention' }));
    expect(() => changeRules(NO_LIMITS, { maxGb: -1 })).toThrow(expect.objectContaining({ code: 'invalid_retention' }));
    expect(changeRules(rules({ keepLast: 3, maxGb: 2 }), { maxGb: null })).toEqual(rules({ keepLast: 3 }));
  });
});
