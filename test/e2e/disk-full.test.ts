import { execFile } from 'node:child_process';
import { mkdir, statfs, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { useCaptureHarness } from '../support/capture-harness.js';
import { probe, SEGMENT_REQUEST, startHlsFixture } from '../support/hls-fixture.js';
import { writeDiscontinuityStream } from '../support/hls-streams.js';

// A disk that fills up during a capture, for real: the worker's spool is a 64 MiB tmpfs, and the
// test fills it past KURA_MIN_FREE_DISK_MB while a live stream is being recorded.
const run = promisify(execFile);
const h = useCaptureHarness();
const MiB = 1024 * 1024;
let mounted: string | null = null;

afterEach(async () => {
  // lazily: the harness may still be stopping the kura that has files open there
  if (mounted !== null) await run('umount', ['-l', mounted]);
  mounted = null;
});

describe('a capture on a disk that fills up', () => {
  it('stops cleanly below KURA_MIN_FREE_DISK_MB and keeps a playable archive, saying why; does not start the next capture there; the spool’s space is in /metrics', async () => {
    const spool = path.join(h.dataDir, 'spool');
    await mkdir(spool, { recursive: true });
    await run('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', spool]);
    mounted = spool;
    const fixture = await h.startFixture({ seconds: 30 });
    const api = await h.serve({ KURA_MIN_FREE_DISK_MB: '32' });
    const id = await h.archive(fixture.url);
    void fixture.start();
    await fixture.seen(SEGMENT_REQUEST, 3);

    // leave 24 MiB free: 8 MiB under the margin
    const { bavail, bsize } = await statfs(spool);
    await writeFile(path.join(spool, 'filler'), Buffer.alloc(bavail * bsize - 24 * MiB));
    const done = await h.settled(id);
    fixture.kill();

    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.endReason).toBe('disk_full');
    expect(details.capture.endNote).toBe('the disk had less free space than the operator keeps free (disk_full)');
    const { duration, frames } = await probe(h.archivedFile(id));
    expect(duration).toBeGreaterThanOrEqual(2);
    expect(duration).toBeLessThan(20); // long before the stream's 30 s
    expect(frames).toBeGreaterThan(0);
    expect(await fetch(`${api}/api/download/${id}/log`).then((r) => r.text())).toMatch(/capture ended \(disk_full\)/);

    // a stream queued now does not start on that disk: it fails at once, saying why, having fetched no segment
    const next = await startHlsFixture({ seconds: 1 });
    try {
      await writeDiscontinuityStream(path.join(next.dir, 'live'));
      const refused = await h.settled(await h.archive(next.url));
      expect(refused.status).toBe('failed');
      expect(refused.failure_reason).toBe('Nothing was captured: the disk had less free space than the operator keeps free (disk_full).');
      expect(next.requests.some((request) => SEGMENT_REQUEST.test(request))).toBe(false);
    } finally {
      await next.close();
    }

    // the worker reported its spool (the tmpfs) through PostgreSQL; the archive storage is the test's own disk
    const metrics = await fetch(`${api}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(new RegExp(`^kura_spool_total_bytes\\{worker="[^"]+"\\} ${64 * MiB}$`, 'm'));
    expect(metrics).toMatch(/^kura_archive_storage_free_bytes \d+$/m);
  });
});
