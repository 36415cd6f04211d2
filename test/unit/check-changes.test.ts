import { describe, expect, it } from 'vitest';
import { checkChanged } from '../../src/core/follows/check-changes.js';
import type { Follow, SignalHealth } from '../../src/core/follows/follow.js';
import type { CheckOutcome } from '../../src/core/follows/ports.js';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, seconds));

function playlist(overrides: Partial<SignalHealth> = {}): SignalHealth {
  return {
    signal: 'playlist',
    lastCheckedAt: at(0),
    lastOkAt: at(0),
    lastError: null,
    lastErrorPublic: null,
    lastErrorAt: null,
    nextCheckAt: at(5),
    ...overrides,
  };
}

/** An HLS endpoint follow checked once at 12:00:00, found off air. */
function buildFollow(overrides: Partial<Follow> = {}): Follow {
  return {
    id: 'f1',
    kind: 'hls_endpoint',
    url: 'https://live.example.org/live/index.m3u8',
    channelId: 'live',
    channelName: 'Live',
    title: null,
    rules: { titleInclude: null, titleExclude: null, membersOnly: 'skip', quality: null },
    retention: { keepLast: null, maxAgeDays: null, maxGb: null },
    paused: false,
    createdBy: 'local/admin',
    createdAt: at(0),
    queuedCount: 0,
    lastCheckedAt: at(0),
    nextCheckAt: at(5),
    failingSince: null,
    signals: [playlist()],
    accessRefused: null,
    ...overrides,
  };
}

/** The next check, at 12:00:05, found off air again unless told otherwise. */
function buildOutcome(overrides: Partial<CheckOutcome> = {}): CheckOutcome {
  return {
    checkedAt: at(5),
    signals: [playlist({ lastCheckedAt: at(5), lastOkAt: at(5), nextCheckAt: at(10) })],
    failingSince: null,
    accessRefused: null,
    queued: 0,
    becameUnhealthy: false,
    ...overrides,
  };
}

describe('whether a check must be written at once', () => {
  it('is not when an off-air look follows an off-air look: only its times moved', () => {
    expect(checkChanged(buildFollow(), buildOutcome())).toBe(false);
  });

  it('is when the follow was never checked, a stream was queued, or it became unhealthy', () => {
    expect(checkChanged(buildFollow({ lastCheckedAt: null, signals: [] }), buildOutcome())).toBe(true);
    expect(checkChanged(buildFollow(), buildOutcome({ queued: 1 }))).toBe(true);
    expect(checkChanged(buildFollow({ failingSince: at(0) }), buildOutcome({ failingSince: at(0), becameUnhealthy: true }))).toBe(true);
  });

  it('is when a signal starts failing, fails in other words, or answers again; not when it fails in the same words', () => {
    const failing = { lastError: 'HTTP 500', lastErrorPublic: 'HTTP 500', lastErrorAt: at(5), lastOkAt: at(0) };
    const failed = buildOutcome({ signals: [playlist({ ...failing, lastCheckedAt: at(5), nextCheckAt: at(10) })], failingSince: at(5) });
    expect(checkChanged(buildFollow(), failed)).toBe(true);
    const stillFailing = buildFollow({ failingSince: at(5), signals: [playlist(failing)] });
    const again = buildOutcome({ signals: [playlist({ ...failing, lastErrorAt: at(10), lastCheckedAt: at(10) })], failingSince: at(5) });
    expect(checkChanged(stillFailing, again)).toBe(false);
    const otherWords = buildOutcome({ signals: [playlist({ ...failing, lastError: 'HTTP 502', lastErrorPublic: 'HTTP 502' })], failingSince: at(5) });
    expect(checkChanged(stillFailing, otherWords)).toBe(true);
    expect(checkChanged(stillFailing, buildOutcome())).toBe(true);
  });

  it('is when the members-only access changes', () => {
    const refusal = { error: 'the cookies no longer give access', since: at(5), probeUrl: 'https://www.youtube.com/watch?v=abc' };
    expect(checkChanged(buildFollow(), buildOutcome({ accessRefused: refusal, failingSince: at(5) }))).toBe(true);
  });
});
