import { describe, expect, it } from 'vitest';
import { AppError, PermanentError } from '../../src/core/errors.js';
import {
  applyEvent,
  canMove,
  describeSeconds,
  neverLiveDeadline,
  neverLiveReason,
  nextStatus,
  type LifecycleEvent,
  type LifecycleEventType,
} from '../../src/core/records/lifecycle.js';
import { LIVESTREAM_STATUSES, type LivestreamStatus } from '../../src/core/vocabulary.js';
import { finalFailure } from '../../src/jobs/job-definition.js';

const archive = { fileSizeBytes: 10, lengthSeconds: 1, videoKey: 'v', logKey: 'l', thumbnailKey: null, sha256: 'a'.repeat(64) };
const EVENTS: Record<LifecycleEventType, LifecycleEvent> = {
  went_live: { type: 'went_live', at: new Date(0) },
  archived: { type: 'archived', endedAt: new Date(0), archive },
  gave_up: { type: 'gave_up', reason: 'the source is gone' },
  cancelled: { type: 'cancelled', reason: 'wrong stream' },
  retried: { type: 'retried' },
  retried_finalize: { type: 'retried_finalize' },
  continued: { type: 'continued' },
};

// Every (state, event) pair: the state it leads to, or null where the lifecycle refuses it.
const EXPECTED: Record<LivestreamStatus, Record<LifecycleEventType, LivestreamStatus | null>> = {
  upcoming: { went_live: 'live', archived: null, gave_up: 'failed', cancelled: 'failed', retried: null, retried_finalize: null, continued: null },
  live: { went_live: null, archived: 'finished', gave_up: 'failed', cancelled: 'live', retried: null, retried_finalize: null, continued: null },
  finished: { went_live: null, archived: null, gave_up: null, cancelled: null, retried: null, retried_finalize: null, continued: 'live' },
  failed: { went_live: null, archived: null, gave_up: null, cancelled: null, retried: 'upcoming', retried_finalize: 'live', continued: null },
};

describe('the lifecycle table', () => {
  const pairs = LIVESTREAM_STATUSES.flatMap((status) => (Object.keys(EVENTS) as LifecycleEventType[]).map((event) => [status, event] as const));

  it.each(pairs)('%s + %s', (status, event) => {
    const expected = EXPECTED[status][event];
    expect(canMove(status, event)).toBe(expected !== null);
    if (expected !== null) {
      expect(nextStatus(status, event)).toBe(expected);
      const change = applyEvent(status, EVENTS[event]);
      expect(change.status).toBe(expected);
      // the database's rule: a failed record always has a reason, any other never keeps one
      if (expected === 'failed') expect(change.failureReason).toEqual(expect.any(String));
      if (expected !== 'failed' && status === 'failed') expect(change.failureReason).toBeNull();
    } else {
      const refused = (() => {
        try {
          applyEvent(status, EVENTS[event]);
        } catch (error) {
          return error;
        }
      })() as AppError;
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ kind: 'conflict', code: 'livestream_state_conflict' });
      expect(refused.detail).toMatch(new RegExp(`^A ${status} livestream cannot `));
    }
  });

  it('gives every state a way out, finished only to go on recording a stream that went on', () => {
    for (const status of LIVESTREAM_STATUSES) {
      const exits = Object.entries(EXPECTED[status]).filter(([, to]) => to !== null && to !== status);
      expect(exits.length > 0, status).toBe(true);
      if (status === 'finished') expect(exits).toEqual([['continued', 'live']]);
    }
  });

  it('keeps what each event says on the record', () => {
    expect(applyEvent('upcoming', EVENTS.cancelled)).toEqual({ status: 'failed', failureReason: 'Cancelled by an admin: wrong stream' });
    expect(applyEvent('live', EVENTS.cancelled)).toEqual({ status: 'live' }); // the capture stops; finalize archives it
    expect(applyEvent('upcoming', EVENTS.went_live)).toEqual({ status: 'live', startedAt: new Date(0) });
    expect(applyEvent('live', EVENTS.archived)).toEqual({ status: 'finished', failureReason: null, endedAt: new Date(0), archive });
    expect(applyEvent('live', { type: 'gave_up', reason: 'noise', endedAt: new Date(5) })).toEqual({
      status: 'failed',
      failureReason: 'noise',
      endedAt: new Date(5),
    });
  });
});

describe('the never-live deadline', () => {
  it('falls neverLiveSeconds after the scheduled start, and says so in words', () => {
    expect(neverLiveDeadline(new Date('2020-01-01T00:00:00Z'), 12 * 3600)).toEqual(new Date('2020-01-01T12:00:00Z'));
    expect(neverLiveReason(12 * 3600, 'not live')).toBe('No stream appeared within 12 h of the scheduled start (not live).');
    expect([describeSeconds(2), describeSeconds(90 * 60), describeSeconds(5400.5), describeSeconds(3 * 86_400 + 100)]).toEqual([
      '2 s',
      '90 min',
      '2 h',
      '72 h',
    ]);
  });
});

describe('a job failing for good', () => {
  it('is retried while attempts remain, and not after the last', () => {
    expect(finalFailure(new Error('remux failed'), { retryCount: 3, retryLimit: 20 })).toBeNull();
    expect(finalFailure(new Error('remux failed'), { retryCount: 20, retryLimit: 20 })).toMatchObject({
      message: 'remux failed',
      permanent: false,
      attempts: 21,
    });
  });

  it('ends at the first PermanentError, with its reason', () => {
    expect(finalFailure(new PermanentError('no playable media'), { retryCount: 0, retryLimit: 20 })).toMatchObject({
      message: 'no playable media',
      permanent: true,
      attempts: 1,
    });
  });
});
