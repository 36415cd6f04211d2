import { describe, expect, it } from 'vitest';
import { daysUntilFull, getDiskFigures, spoolReportDue, type DiskReports, type SpoolDisk } from '../../src/core/archive/disk-figures.js';

const GB = 10 ** 9;
const now = new Date('2026-11-27T12:00:00Z');

/** Reports as PostgreSQL would answer them: `grown` bytes archived in the window, and these spools. */
function reports(grown: number, spools: SpoolDisk[]): DiskReports & { asked: Date[] } {
  const asked: Date[] = [];
  return {
    asked,
    reportSpool: async () => undefined,
    spoolsSince: async (since) => {
      asked.push(since);
      return spools.filter((spool) => spool.reportedAt >= since);
    },
    archivedBytesSince: async (since) => {
      asked.push(since);
      return grown;
    },
  };
}

describe('days until the archive storage is full', () => {
  it('is the free space over the last 30 days’ growth per day, in whole days', () => {
    expect(daysUntilFull(100 * GB, 30 * GB)).toBe(100); // 1 GB a day
    expect(daysUntilFull(100 * GB, 45 * GB)).toBe(66); // 1.5 GB a day: 66.7 days, not 67
    expect(daysUntilFull(0, 30 * GB)).toBe(0);
  });

  it('has no estimate without growth', () => {
    expect(daysUntilFull(100 * GB, 0)).toBeNull();
  });
});

describe('the disk figures', () => {
  const spool = (workerId: string, freeBytes: number, agoSeconds: number): SpoolDisk => ({
    workerId,
    freeBytes,
    totalBytes: 100 * GB,
    reportedAt: new Date(now.getTime() - agoSeconds * 1000),
  });

  it('names every place under 10 % free, the archive storage and each worker’s spool, and leaves out a worker silent for 35 minutes', async () => {
    const from = reports(30 * GB, [spool('a:1', 9 * GB, 10), spool('b:2', 50 * GB, 34 * 60), spool('gone:3', 1 * GB, 35 * 60 + 1)]);
    const figures = await getDiskFigures({ reports: from, archiveSpace: async () => ({ freeBytes: 5 * GB, totalBytes: 200 * GB }) }, now);
    expect(figures.archive).toEqual({ storage: 'local', freeBytes: 5 * GB, totalBytes: 200 * GB, daysUntilFull: 5 });
    expect(figures.archivedBytesLast30Days).toBe(30 * GB);
    expect(figures.spools.map((s) => s.workerId)).toEqual(['a:1', 'b:2']);
    expect(figures.low).toEqual([
      { place: 'archive', workerId: null, freeBytes: 5 * GB, totalBytes: 200 * GB, freePercent: 2.5 },
      { place: 'spool', workerId: 'a:1', freeBytes: 9 * GB, totalBytes: 100 * GB, freePercent: 9 },
    ]);
    expect(from.asked).toContainEqual(new Date('2026-10-28T12:00:00Z')); // growth: the last 30 days
  });

  it('has no archive figures on S3, only the spools', async () => {
    const figures = await getDiskFigures({ reports: reports(30 * GB, [spool('a:1', 10 * GB, 1)]), archiveSpace: null }, now);
    expect(figures.archive).toEqual({ storage: 's3' });
    expect(figures.low).toEqual([]); // exactly 10 % free is not below it
  });
});

describe('when a worker writes its spool’s report', () => {
  const GB = 1e9;
  const last = { space: { freeBytes: 400 * GB, totalBytes: 1000 * GB }, atMs: 0 };
  it('writes the first look, one whose free space moved by a thousandth of the disk, and one half an hour after the last', () => {
    expect(spoolReportDue(null, last.space, 0)).toBe(true);
    expect(spoolReportDue(last, { freeBytes: 399 * GB, totalBytes: 1000 * GB }, 60_000)).toBe(true);
    expect(spoolReportDue(last, { freeBytes: 401 * GB, totalBytes: 1000 * GB }, 60_000)).toBe(true);
    expect(spoolReportDue(last, { freeBytes: 400 * GB, totalBytes: 2000 * GB }, 60_000)).toBe(true);
    expect(spoolReportDue(last, last.space, 1_800_000)).toBe(true);
  });

  it('skips a look that changed less within half an hour: an idle worker writes every half hour', () => {
    expect(spoolReportDue(last, last.space, 60_000)).toBe(false);
    expect(spoolReportDue(last, { freeBytes: 400.9 * GB, totalBytes: 1000 * GB }, 1_799_999)).toBe(false);
  });
});
