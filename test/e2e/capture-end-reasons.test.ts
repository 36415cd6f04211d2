import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/browser.js';
import { runKura } from '../support/cli.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { useCaptureHarness } from '../support/capture-harness.js';
import { probe, SEGMENT_REQUEST } from '../support/hls-fixture.js';

// Ways a real capture ends before its stream does, each a few seconds of a live stream:
// the operator's duration ceiling, and a source that stops answering (or never answers a record
// imported as live). The rest of the end reasons are in capture.test.ts.
const h = useCaptureHarness();

describe('a capture ending before its stream', () => {
  it('ends at the duration ceiling (KURA_CAPTURE_MAX_SECONDS) and archives what it captured', async () => {
    const fixture = await h.startFixture({ seconds: 30 });
    const api = await h.serve({ KURA_CAPTURE_MAX_SECONDS: '3' });
    const id = await h.archive(fixture.url);
    void fixture.start();
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.endReason).toBe('duration_limit');
    // 1 s segments: it stops at the first segment that takes it to 3 s, long before the stream's 30
    const { duration } = await probe(h.archivedFile(id));
    expect(duration).toBeGreaterThanOrEqual(2.9);
    expect(duration).toBeLessThan(5);
    expect(await fetch(`${api}/api/download/${id}/log`).then((r) => r.text())).toMatch(/capture ended \(duration_limit\): 3\.\d s/);
  });

  it('ends as source_unreachable when the source stops answering, keeping what was captured', async () => {
    const fixture = await h.startFixture({ seconds: 30 });
    // the idle timeout is longer, so only the unreachable one can end it
    const api = await h.serve({ KURA_CAPTURE_UNREACHABLE_SECONDS: '2', KURA_CAPTURE_IDLE_SECONDS: '60' });
    const id = await h.archive(fixture.url);
    void fixture.start();
    await fixture.seen(SEGMENT_REQUEST, 4);
    fixture.fail = () => 'reset'; // the host goes away: every request's connection is dropped
    fixture.kill();
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.endReason).toBe('source_unreachable');
    expect(details.length).toBeGreaterThanOrEqual(3);
    expect(details.length).toBeLessThan(20);
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toContain('playlist fetch failed');
    expect(log).toContain('capture ended (source_unreachable)');
  });

  it('ends an imported live record whose source refuses connections as source_unreachable, as it would a submitted one', async () => {
    // a port nothing listens on: every connection to the playlist is refused, from the first
    const source = `http://127.0.0.1:${await freePort()}/live/stream.m3u8`;
    const id = 'imported-live-refused';
    const file = path.join(path.dirname(h.dataDir), 'history.json');
    const record = { id, status: 'live', finished: false, platform: 'hls', sourceUrl: source, scheduledStart: new Date().toISOString() };
    await writeFile(file, JSON.stringify([{ ...record, title: 'Imported karaoke', channelName: 'Old channel', channelId: 'old-channel' }]));
    const imported = await runKura(['import', file], h.env(), path.dirname(h.dataDir));
    expect(imported.code, imported.stderr).toBe(0);
    const api = await h.serve({ KURA_CAPTURE_UNREACHABLE_SECONDS: '2', KURA_CAPTURE_IDLE_SECONDS: '60' });
    const done = await h.settled(id);
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toBe('Nothing was captured: the source stopped answering (source_unreachable).');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.endReason).toBe('source_unreachable');
    // nothing was archived, so its capture's log is read where it is kept
    const log = await createCaptureRepo(h.db.pool).readLog(id);
    expect(log).toMatch(/the source did not answer \(.*ECONNREFUSED.*\); asking again/);
    expect(log).toContain('capture ended (source_unreachable): the source gave no answer for 2 s');
    await h.kura!.waitForLog((line) => line.msg === `capture ended: ${id} (source_unreachable), 0 gap(s)`);
  });
});
