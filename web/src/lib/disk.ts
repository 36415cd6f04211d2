import type { DiskStats } from './api.js';
import { humanSize } from './format.js';
import { m } from './i18n.js';

/** One place Kura writes to, as the stats page and the admin banner name it. */
export interface DiskRow {
  where: string;
  freeBytes: number;
  totalBytes: number;
  freePercent: number;
  daysUntilFull: number | null;
}

const whereOf = (place: 'archive' | 'spool', workerId: string | null) =>
  place === 'archive' ? m.disk_archive_storage() : m.disk_spool({ worker: workerId ?? '?' });
const percent = (free: number, total: number) => (total > 0 ? Math.round((free / total) * 1000) / 10 : 0);

/** The archive storage (when it is a local filesystem) and each worker's spool, in that order. */
export function diskRows(disk: DiskStats): DiskRow[] {
  const { archive } = disk;
  const rows: DiskRow[] =
    archive.storage === 'local' ? [{ where: whereOf('archive', null), ...archive, freePercent: percent(archive.freeBytes, archive.totalBytes) }] : [];
  for (const spool of disk.spools) {
    rows.push({ where: whereOf('spool', spool.workerId), ...spool, freePercent: percent(spool.freeBytes, spool.totalBytes), daysUntilFull: null });
  }
  return rows;
}

/** The banner's lines: each place below 10 % free, with its figure and where it is. */
export function lowDiskLines(disk: DiskStats): string[] {
  return disk.low.map((low) =>
    m.disk_low_line({ where: whereOf(low.place, low.workerId), free: humanSize(low.freeBytes), total: humanSize(low.totalBytes), percent: low.freePercent }),
  );
}
