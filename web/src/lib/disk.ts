import type { DiskStats } from './api.js';
import { humanSize } from './format.js';

/** One place Kura writes to, as the stats page and the admin banner name it. */
export interface DiskRow {
  where: string;
  freeBytes: number;
  totalBytes: number;
  freePercent: number;
  daysUntilFull: number | null;
}

const whereOf = (place: 'archive' | 'spool', workerId: string | null) => (place === 'archive' ? 'archive storage' : `spool of worker ${workerId ?? '?'}`);
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
  return disk.low.map((low) => `${whereOf(low.place, low.workerId)}: ${humanSize(low.freeBytes)} free of ${humanSize(low.totalBytes)} (${low.freePercent} %)`);
}
