import { describe, expect, it } from 'vitest';
import { INTERRUPTED_FRAMES, INTERRUPTED_SECONDS, useCaptureHarness } from '../support/capture-harness.js';
import { probe } from '../support/hls-fixture.js';

// A capture across a restart of `kura serve`: killed (SIGKILL) while recording fMP4, or stopped
// (SIGTERM) and handed over. Beside capture-resume.test.ts's faults, in a file of its own so the
// two run side by side (each test is a stream of INTERRUPTED_SECONDS in real time).
const h = useCaptureHarness();

describe('a capture across a restart', () => {
  it('records fMP4 segments behind their initialization section, across a SIGKILL', async () => {
    const { id, api } = await h.interruptMidCapture('SIGKILL', { segmentType: 'fmp4' });
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    // the resumed capture cannot know the first part's section: it starts a part of its own
    expect(details.capture.parts.length).toBe(2);
    expect(h.fixture.requests.filter((r) => r.endsWith('/init.mp4')).length).toBeGreaterThanOrEqual(2);
    const ours = await probe(h.archivedFile(id));
    expect(ours.frames).toBe(INTERRUPTED_FRAMES);
    expect(Math.abs(ours.duration - INTERRUPTED_SECONDS)).toBeLessThanOrEqual(0.2);
  });

  it('hands a capture over on SIGTERM: the next worker resumes it without a gap', async () => {
    const { id, api, exit } = await h.interruptMidCapture('SIGTERM');
    expect(exit.code).toBe(0);
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toContain('stopped; the capture continues on the next worker');
    expect((await probe(h.archivedFile(id))).frames).toBe(INTERRUPTED_FRAMES);
  });
});
