import { describe, expect, it } from 'vitest';
import {
  CAPTURE_STATES,
  CAPTURE_TRANSITIONS,
  isFinalized,
  isRecording,
  MOVED_ON_BY,
  nextCaptureState,
  type CaptureEvent,
  type CaptureState,
} from '../../src/core/capture/capture-lifecycle.js';

const EVENTS: readonly CaptureEvent[] = [
  'claimed',
  'lease_renewed',
  'stop_requested',
  'chunk_stored',
  'ended',
  'finalize_claimed',
  'finalized',
  'finalized_keeping',
  'reopened',
  'let_go',
];
const NONE = { finalized_keeping: null, reopened: null, let_go: null } as const;

// Every (state, event) pair: the state it leads to, or null where the capture repository's statement changes nothing.
const EXPECTED: Record<CaptureState, Record<CaptureEvent, CaptureState | null>> = {
  capturing: {
    claimed: 'capturing',
    lease_renewed: 'capturing',
    stop_requested: 'capturing',
    chunk_stored: 'capturing',
    ended: 'ended',
    finalize_claimed: null,
    finalized: null,
    ...NONE,
  },
  ended: {
    claimed: null,
    lease_renewed: 'ended',
    stop_requested: null,
    chunk_stored: null,
    ended: null,
    finalize_claimed: 'ended',
    finalized: 'finalized',
    ...NONE,
    finalized_keeping: 'kept',
  },
  // kept for a stream that may go on (decision 0090): only going on, or letting it go, leads out
  kept: {
    claimed: null,
    lease_renewed: null,
    stop_requested: null,
    chunk_stored: null,
    ended: null,
    finalize_claimed: null,
    finalized: null,
    ...NONE,
    reopened: 'capturing',
    let_go: 'finalized',
  },
  finalized: { claimed: null, lease_renewed: null, stop_requested: null, chunk_stored: null, ended: null, finalize_claimed: null, finalized: null, ...NONE },
};

describe('the capture lifecycle table', () => {
  const pairs = CAPTURE_STATES.flatMap((state) => EVENTS.map((event) => [state, event] as const));

  it.each(pairs)('%s + %s', (state, event) => {
    expect(nextCaptureState(state, event)).toBe(EXPECTED[state][event]);
  });

  it('names only the states and events above', () => {
    expect(Object.keys(CAPTURE_TRANSITIONS).sort()).toEqual([...CAPTURE_STATES].sort());
    for (const state of CAPTURE_STATES) for (const event of Object.keys(CAPTURE_TRANSITIONS[state])) expect(EVENTS).toContain(event);
  });

  it.each([
    ['capturing', true, false, 'capture'],
    ['ended', false, false, 'finalize'],
    ['kept', false, false, null],
    ['finalized', false, true, null],
  ] as const)('%s: recording %s, finalized %s, moved on by the %s job', (state, recording, finalized, job) => {
    expect(isRecording(state)).toBe(recording);
    expect(isFinalized(state)).toBe(finalized);
    expect(MOVED_ON_BY[state]).toBe(job);
  });

  it('moves each state on by the job whose event leaves it', () => {
    // the capture job ends a recording capture; the finalize job finalizes an ended one
    expect(nextCaptureState('capturing', 'ended')).not.toBe('capturing');
    expect(nextCaptureState('ended', 'finalized')).not.toBe('ended');
    // a kept capture waits for the look at its stream (the watch job), not for a job of its own
    for (const state of CAPTURE_STATES) expect(MOVED_ON_BY[state] === null).toBe(isFinalized(state) || state === 'kept');
  });
});
