import { statfs } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDiskReportRepo } from '../../src/adapters/db/disk-report-repo.js';
import { addUser, logIn } from '../support/accounts.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildRecord } from '../support/factories.js';

// The disk figures: the archive storage read with statfs by the api, each worker's spool as the
// worker reported it in PostgreSQL (as the spool-report loop does), for admins and /metrics only.
let kura: TestApp;
beforeEach(async () => {
  kura = await startTestApp();
});
afterEach(() => kura.close());

const GB = 10 ** 9;

describe('the disk figures in GET /api/stats and /metrics', () => {
  it('shows an admin the archive storage’s space with days until full, and the spools workers reported, the nearly full one named', async () => {
    await kura.load([buildRecord({ id: 'recent', fileSizeBytes: 3 * GB }), buildRecord({ id: 'old', fileSizeBytes: 7 * GB })]);
    // growth is what finished in the last 30 days: "old" ended before them
    await kura.db.pool.query(`update livestreams set ended_at = now() - case id when 'recent' then interval '2 days' else interval '40 days' end`);
    const reports = createDiskReportRepo(kura.db.pool);
    await reports.reportSpool('worker-a:1', { freeBytes: 4 * GB, totalBytes: 100 * GB });
    await reports.reportSpool('worker-b:2', { freeBytes: 60 * GB, totalBytes: 100 * GB });
    await addUser(kura, 'root', { admin: true });
    await addUser(kura, 'viewer');

    for (const cookie of [undefined, await logIn(kura, 'viewer')]) {
      const shown = await kura.app.inject({ url: '/api/stats', headers: cookie === undefined ? {} : { cookie } });
      expect(shown.statusCode).toBe(200);
      expect(shown.json()).not.toHaveProperty('disk');
    }

    const response = await kura.app.inject({ url: '/api/stats', headers: { cookie: await logIn(kura, 'root') } });
    expect(response.statusCode).toBe(200);
    const { disk } = response.json();
    const { blocks, bavail, bsize } = await statfs(kura.archiveDir);
    expect(disk.archive).toMatchObject({ storage: 'local', totalBytes: blocks * bsize });
    expect(Math.abs(disk.archive.freeBytes - bavail * bsize)).toBeLessThan(0.01 * blocks * bsize);
    expect(disk.archive.daysUntilFull).toBe(Math.floor(disk.archive.freeBytes / ((3 * GB) / 30)));
    expect(disk.archivedBytesLast30Days).toBe(3 * GB);
    expect(disk.spools).toEqual([
      { workerId: 'worker-a:1', freeBytes: 4 * GB, totalBytes: 100 * GB, reportedAt: expect.any(String) },
      { workerId: 'worker-b:2', freeBytes: 60 * GB, totalBytes: 100 * GB, reportedAt: expect.any(String) },
    ]);
    expect(disk.low).toContainEqual({ place: 'spool', workerId: 'worker-a:1', freeBytes: 4 * GB, totalBytes: 100 * GB, freePercent: 4 });
    expect(disk.low.filter((low: { place: string }) => low.place === 'spool')).toHaveLength(1);

    const metrics = (await kura.app.inject({ url: '/metrics' })).body;
    expect(metrics).toContain(`kura_spool_free_bytes{worker="worker-a:1"} ${4 * GB}`);
    expect(metrics).toContain(`kura_spool_total_bytes{worker="worker-b:2"} ${100 * GB}`);
    expect(metrics).toContain(`kura_archive_storage_total_bytes ${blocks * bsize}`);
    expect(metrics).toContain(`kura_archive_storage_days_until_full ${disk.archive.daysUntilFull}`);
  });

  it('forgets a worker that stopped reporting: out of the figures after 35 minutes, its row deleted after a day', async () => {
    const reports = createDiskReportRepo(kura.db.pool);
    await reports.reportSpool('gone:1', { freeBytes: GB, totalBytes: 100 * GB });
    await reports.reportSpool('quiet:2', { freeBytes: GB, totalBytes: 100 * GB });
    await reports.reportSpool('still:4', { freeBytes: GB, totalBytes: 100 * GB });
    // an idle worker rewrites an unchanged report every half hour: one 34 minutes old is still there
    await kura.db.pool.query(
      `update worker_disks set reported_at = now() - case worker_id when 'gone:1' then interval '25 hours'
         when 'quiet:2' then interval '36 minutes' else interval '34 minutes' end`,
    );
    await reports.reportSpool('here:3', { freeBytes: 50 * GB, totalBytes: 100 * GB });
    const { rows } = await kura.db.pool.query<{ worker_id: string }>('select worker_id from worker_disks order by worker_id');
    expect(rows.map((row) => row.worker_id)).toEqual(['here:3', 'quiet:2', 'still:4']);
    const metrics = (await kura.app.inject({ url: '/metrics' })).body;
    expect(metrics).toContain('kura_spool_free_bytes{worker="here:3"}');
    expect(metrics).toContain('kura_spool_free_bytes{worker="still:4"}');
    expect(metrics).not.toContain('quiet:2');
  });
});
