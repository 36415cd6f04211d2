import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFrameRequests } from '../../src/core/playback/frame-requests.js';
import { keepLiveFrame, LIVE_FRAME_EVERY_MS, LOOKED_AT_FOR_MS, type KeepLiveFrameDeps } from '../../src/core/playback/refresh-live-frame.js';

// When a recording's frame is made (decision 0102), on fake timers: every try here fails at its
// first step, reading the capture (a stand-in that counts the tries), which keepLiveFrame retries a
// frame interval later, as it would a frame made.
let tries: number;
let errors: string[];
const frameRequests = createFrameRequests();
const deps = {
  live: {
    captures: {
      get: async () => {
        tries += 1;
        throw new Error('the capture cannot be read');
      },
    },
  },
  frameRequests,
} as unknown as KeepLiveFrameDeps;

let stop: () => void;
beforeEach(() => {
  vi.useFakeTimers();
  tries = 0;
  errors = [];
  stop = keepLiveFrame(deps, 'rec', 'worker-1', (error) => errors.push(error.message));
});
afterEach(() => {
  stop();
  vi.useRealTimers();
});

const minutes = (n: number) => vi.advanceTimersByTimeAsync(n * 60_000);

describe('a recording’s recent frame', () => {
  it('is not made while nobody looks, however long the recording', async () => {
    await minutes(60);
    expect(tries).toBe(0);
  });

  it('is made at once at a look, then once a frame interval while looks go on, and no more once they stop', async () => {
    frameRequests.heard('rec');
    await vi.advanceTimersByTimeAsync(0);
    expect(tries).toBe(1);
    expect(errors).toEqual(['the capture cannot be read']);
    frameRequests.heard('rec'); // a second look before the next frame is due asks nothing more
    await vi.advanceTimersByTimeAsync(LIVE_FRAME_EVERY_MS - 1);
    expect(tries).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(tries).toBe(2);
    // the last look was a minute ago: frames go on until LOOKED_AT_FOR_MS has passed since it
    await vi.advanceTimersByTimeAsync(LIVE_FRAME_EVERY_MS);
    expect(tries).toBe(3);
    await minutes(30);
    expect(tries).toBe(Math.ceil(LOOKED_AT_FOR_MS / LIVE_FRAME_EVERY_MS));
    // a look again: a frame at once
    frameRequests.heard('rec');
    await vi.advanceTimersByTimeAsync(0);
    expect(tries).toBe(Math.ceil(LOOKED_AT_FOR_MS / LIVE_FRAME_EVERY_MS) + 1);
  });

  it('hears only its own record’s looks, and none once stopped', async () => {
    frameRequests.heard('another');
    await vi.advanceTimersByTimeAsync(0);
    expect(tries).toBe(0);
    stop();
    frameRequests.heard('rec');
    await minutes(5);
    expect(tries).toBe(0);
  });
});
