import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_FRAMES, INTERRUPTED_SECONDS, useCaptureHarness } from '../support/capture-harness.js';
import { probe } from '../support/hls-fixture.js';

// Real captures through faults: the source failing requests, `kura serve` killed (SIGKILL) or
// stopped (SIGTERM) mid-capture and started again, a worker's disk lost. Nothing recorded is lost,
// and what the source no longer lists is recorded as a gap.
const h = useCaptureHarness();

describe('resuming a capture', () => {
  it('keeps the archive complete through faults, and records a segment that is gone as a gap', async () => {
    const fixture = await h.startFixture({ seconds: 20 });
    const api = await h.serve();
    // queued first: the submission reads the playlist once, before the faults begin
    const id = await h.archive(fixture.url);
    let n = 0;
    const faults = ['503', 'reset', 'stall'] as const;
    fixture.fail = (requestPath) => {
      if (requestPath.endsWith('seg00007.ts')) return 404; // this segment's file is gone on the server
      n += 1;
      // a deterministic 15%: 3 of every 20 requests fail, rotating through the fault kinds
      if (n % 20 >= 3) return null;
      const fault = faults[Math.floor(n / 20) % faults.length] as (typeof faults)[number];
      return fault === '503' ? 503 : fault;
    };
    await fixture.start();
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');

    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture).toMatchObject({ state: 'finalized', endReason: 'endlist', complete: false });
    expect(details.capture.gaps).toEqual([{ firstSequence: 7, lastSequence: 7, seconds: expect.closeTo(1, 1), reason: expect.stringContaining('404') }]);
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toContain('GAP: sequences 7-7');
    expect(log).toMatch(/attempt 1 failed/);
    // every other segment arrived: 20 one-second segments of 30 frames, less the lost one
    const ours = await probe(h.archivedFile(id));
    expect(ours.frames).toBe(600 - 30);
  });

  it('resumes after the worker is killed with SIGKILL, missing no segment', async () => {
    const { id, api } = await h.interruptMidCapture('SIGKILL');
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toContain('stopped answering');
    expect(log).toMatch(/resuming/);
    const ours = await probe(h.archivedFile(id));
    expect(ours.frames).toBe(INTERRUPTED_FRAMES);
  });

  it('fetches again, from the source, what a crashed worker had not uploaded and its disk lost', async () => {
    const lostDisk = (killed: string) => rm(path.join(h.dataDir, 'spool', killed), { recursive: true });
    const { id, api } = await h.interruptMidCapture('SIGKILL', {}, lostDisk);
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]); // the window still listed every segment
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toMatch(/from sequence 0 on is neither stored nor on this worker's disk; fetching it again/);
    expect((await probe(h.archivedFile(id))).frames).toBe(INTERRUPTED_FRAMES);
  });

  it('records what left the window meanwhile as a gap, never writing past a hole', async () => {
    const lostDisk = (killed: string) => rm(path.join(h.dataDir, 'spool', killed), { recursive: true });
    const { id, api } = await h.interruptMidCapture('SIGKILL', { listSize: 4 }, lostDisk);
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([
      { firstSequence: 0, lastSequence: expect.any(Number), seconds: expect.any(Number), reason: 'left the window before it could be fetched' },
    ]);
    const lost = details.capture.gaps[0].lastSequence + 1;
    expect(lost).toBeGreaterThanOrEqual(4);
    expect(details.capture.parts).toEqual([expect.objectContaining({ part: 1, segments: INTERRUPTED_SECONDS - lost })]);
    expect((await probe(h.archivedFile(id))).frames).toBe(INTERRUPTED_FRAMES - 30 * lost); // the rest whole, no garbage
  });
});
