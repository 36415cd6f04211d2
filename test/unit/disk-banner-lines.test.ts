import { describe, expect, it } from 'vitest';
import { diskRows, lowDiskLines } from '../../web/src/lib/disk.js';

const GB = 10 ** 9;

describe('the disk space an admin sees in the web UI', () => {
  const disk = {
    archive: { storage: 'local' as const, freeBytes: 5 * GB, totalBytes: 200 * GB, daysUntilFull: 5 },
    archivedBytesLast30Days: 30 * GB,
    spools: [{ workerId: 'box:12', freeBytes: 40 * GB, totalBytes: 100 * GB, reportedAt: '2026-11-27T12:00:00.000Z' }],
    low: [{ place: 'archive' as const, workerId: null, freeBytes: 5 * GB, totalBytes: 200 * GB, freePercent: 2.5 }],
  };

  it('names each nearly full place with its figure in the banner', () => {
    expect(lowDiskLines(disk)).toEqual(['archive storage: 5.0 GB free of 200 GB (2.5 %)']);
    const spool = { place: 'spool' as const, workerId: 'box:12', freeBytes: 3 * GB, totalBytes: 100 * GB, freePercent: 3 };
    expect(lowDiskLines({ ...disk, low: [spool] })).toEqual(['spool of worker box:12: 3.0 GB free of 100 GB (3 %)']);
  });

  it('lists the archive storage, then each spool, on the statistics page; on S3 the spools alone', () => {
    expect(diskRows(disk).map((row) => [row.where, row.freePercent, row.daysUntilFull])).toEqual([
      ['archive storage', 2.5, 5],
      ['spool of worker box:12', 40, null],
    ]);
    expect(diskRows({ ...disk, archive: { storage: 's3' } }).map((row) => row.where)).toEqual(['spool of worker box:12']);
  });
});
