import { afterEach, describe, expect, it } from 'vitest';
import { useCaptureHarness } from '../support/capture-harness.js';
import { startHlsEndpointFixture, type HlsEndpointFixture } from '../support/hls-endpoint-fixture.js';
import { probe } from '../support/hls-fixture.js';

// An HLS endpoint that is live only sometimes (MediaMTX, Owncast, nginx-rtmp): its playlist
// answers 404 once a broadcast stops, and the next broadcast restarts the media sequence on the
// same URL. A capture ends with the broadcast, whole, so the next one becomes a record of its own.
const h = useCaptureHarness();
let endpoint: HlsEndpointFixture | null = null;
afterEach(async () => {
  await endpoint?.close();
  endpoint = null;
});

describe('a capture of an HLS endpoint that goes offline', () => {
  it('ends as offline once the playlist answered 404 for KURA_CAPTURE_OFFLINE_SECONDS, with every frame of the broadcast', async () => {
    endpoint = await startHlsEndpointFixture();
    // idle and unreachable time-outs are longer, so only the offline one can end it
    const api = await h.serve({ KURA_CAPTURE_OFFLINE_SECONDS: '2', KURA_CAPTURE_IDLE_SECONDS: '60' });
    // submitted once it is on air: the endpoint answers 404 before, which a submission refuses
    const broadcast = endpoint.broadcast({ seconds: 6 });
    await broadcast.onAir;
    const id = await h.archive(endpoint.url);
    await broadcast.fetchedAll();
    await endpoint.goOffline();
    const offlineFrom = endpoint.requests.length;
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.endReason).toBe('offline');
    expect((await probe(h.archivedFile(id))).frames).toBe(broadcast.frames);
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toMatch(/playlist fetch failed: .*HTTP 404/);
    expect(log).toContain('capture ended (offline)');
    // it asked through 2 s of 404s (every half target duration, 0.5 s), not only once
    expect(endpoint.requests.slice(offlineFrom).filter((r) => r.endsWith('/index.m3u8')).length).toBeGreaterThanOrEqual(4);
  });

  it('ends as restarted when a new broadcast restarts the media sequence before the offline time-out, keeping only the first', async () => {
    endpoint = await startHlsEndpointFixture();
    const api = await h.serve({ KURA_CAPTURE_OFFLINE_SECONDS: '60', KURA_CAPTURE_IDLE_SECONDS: '60' });
    const first = endpoint.broadcast({ seconds: 8 });
    await first.onAir;
    const id = await h.archive(endpoint.url);
    await first.fetchedAll();
    await endpoint.goOffline();
    await endpoint.offlineAnswers(1);
    const second = endpoint.broadcast({ seconds: 20 });
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.endReason).toBe('restarted');
    expect((await probe(h.archivedFile(id))).frames).toBe(first.frames);
    expect(endpoint.requests.filter((r) => second.segmentRequest.test(r))).toEqual([]);
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toMatch(/the playlist now lists sequences 0-\d+, far below 8: a new broadcast/);
    expect(log).toContain('capture ended (restarted)');
  });
});
