import { describe, expect, it } from 'vitest';
import type { Capture, RecordedSegment } from '../../src/core/capture/capture.js';
import { progressOf } from '../../src/core/capture/capture-progress.js';

const started = new Date('2026-11-27T10:00:00Z');

function capture(overrides: Partial<Capture> = {}): Capture {
  return {
    livestreamId: 'rec',
    playlistUrl: 'https://example.com/live.m3u8',
    fragmentFormats: null,
    audioLanes: [],
    state: 'capturing',
    endReason: null,
    stopRequested: null,
    workerId: 'worker-1',
    heartbeatAt: started,
    nextSequence: 0,
    currentPart: 1,
    startedAt: started,
    endedAt: null,
    frameAt: null,
    keptUntil: null,
    ...overrides,
  };
}

/** Segments of `seconds` each, `bytes` each, numbered from `first`, in `part` from byte `from`. */
function segments(count: number, each: { seconds: number; bytes: number; first?: number; part?: number; from?: number }): RecordedSegment[] {
  const { first = 0, part = 1, from = 0 } = each;
  return Array.from({ length: count }, (_, i) => ({ sequence: first + i, part, endOffset: from + (i + 1) * each.bytes, durationSeconds: each.seconds }));
}

const at = (seconds: number) => new Date(started.getTime() + seconds * 1000);

describe('a recording’s figures', () => {
  it('measures the bitrate over the last 30 s of segments only, so a change of rate shows within half a minute', async () => {
    // 60 s at 250 kB a 2-s segment (1 Mb/s), then 30 s at 500 kB (2 Mb/s)
    const recent = [...segments(30, { seconds: 2, bytes: 250_000 }), ...segments(15, { seconds: 2, bytes: 500_000, first: 30, from: 7_500_000 })];
    const parts = [{ part: 1, bytes: 15_000_000, segments: 45, seconds: 90 }];
    const progress = progressOf(capture(), { parts, gaps: [], recent }, at(95.4));
    expect(progress).toEqual({ elapsedSeconds: 95, recordedSeconds: 90, bytes: 15_000_000, bitsPerSecond: 2_000_000, gaps: 0, lostSeconds: 0, frameAt: null });
  });

  it('leaves out the first segment of a part, whose start is not among the segments read, and has no rate before two', async () => {
    const recent = [...segments(2, { seconds: 1, bytes: 100_000 }), ...segments(2, { seconds: 1, bytes: 300_000, first: 2, part: 2 })];
    expect(progressOf(capture(), { parts: [], gaps: [], recent }, at(5)).bitsPerSecond).toBe(((100_000 + 300_000) * 8) / 2);
    expect(progressOf(capture(), { parts: [], gaps: [], recent: recent.slice(0, 1) }, at(5)).bitsPerSecond).toBeNull();
  });

  it('counts a capture of fragments’ seconds once, though each is recorded as a video and an audio fragment, and sums its gaps', async () => {
    const fragmentFormats = { video: '299', audio: '140', fragmentSeconds: 5 };
    // fragment n is segment 2n (video, 600 kB) and 2n + 1 (audio, 25 kB), 5 s each
    const recent = Array.from({ length: 20 }, (_, i) => i).flatMap((n) => [
      { sequence: 2 * n, part: 1, endOffset: n * 625_000 + 600_000, durationSeconds: 5 },
      { sequence: 2 * n + 1, part: 1, endOffset: (n + 1) * 625_000, durationSeconds: 5 },
    ]);
    const gaps = [
      { firstSequence: 40, lastSequence: 41, seconds: 10, reason: 'gone' },
      { firstSequence: 50, lastSequence: 50, seconds: 5, reason: 'gone' },
    ];
    const parts = [{ part: 1, bytes: 12_500_000, segments: 40, seconds: 200 }];
    const progress = progressOf(capture({ fragmentFormats, frameAt: at(60) }), { parts, gaps, recent }, at(120));
    expect(progress).toMatchObject({ recordedSeconds: 100, gaps: 2, lostSeconds: 15, frameAt: at(60) });
    expect(progress.bitsPerSecond).toBe((625_000 * 8) / 5);
  });
});
