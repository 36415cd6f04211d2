import { Gauge, type Registry } from 'prom-client';
import type { DiskFigures } from '../core/archive/disk-figures.js';

/** The disk figures as the api reads them (a few seconds apart at most), and whether the archive storage is a local filesystem. */
export interface DiskSource {
  read(): Promise<DiskFigures>;
  archiveStorage: 'local' | 's3';
}

/**
 * `kura_archive_storage_{free,total}_bytes` and `kura_archive_storage_days_until_full` (+Inf
 * without growth), for a local archive storage only (S3 has no size), and
 * `kura_spool_{free,total}_bytes{worker}`: from one read of the disk figures per scrape.
 */
export function registerDiskGauges(registry: Registry, disks: DiskSource): void {
  // as the follow gauges: the first gauge's collect starts the read, the others await the same one
  let read: Promise<DiskFigures | null> = Promise.resolve(null);
  const gauge = (name: string, help: string, labelNames: string[], set: (gauge: Gauge, figures: DiskFigures) => void, first = false) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        if (first) read = disks.read().catch(() => null);
        const figures = await read;
        // the database not answering keeps the last figures, like kura_archives
        if (figures !== null) set(this, figures);
      },
    });
  const archive = (key: 'freeBytes' | 'totalBytes' | 'daysUntilFull') => (metric: Gauge, figures: DiskFigures) => {
    if (figures.archive.storage === 'local') metric.set(figures.archive[key] ?? Number.POSITIVE_INFINITY);
  };
  const spools = (key: 'freeBytes' | 'totalBytes') => (metric: Gauge, figures: DiskFigures) => {
    metric.reset(); // a worker gone is left out
    for (const spool of figures.spools) metric.set({ worker: spool.workerId }, spool[key]);
  };
  gauge('kura_spool_free_bytes', 'Free bytes of each worker’s spool filesystem, as the worker last reported it', ['worker'], spools('freeBytes'), true);
  gauge('kura_spool_total_bytes', 'Size of each worker’s spool filesystem, as the worker last reported it', ['worker'], spools('totalBytes'));
  if (disks.archiveStorage === 's3') return;
  gauge('kura_archive_storage_free_bytes', 'Free bytes of the filesystem the archive storage is on', [], archive('freeBytes'));
  gauge('kura_archive_storage_total_bytes', 'Size of the filesystem the archive storage is on', [], archive('totalBytes'));
  gauge(
    'kura_archive_storage_days_until_full',
    'Whole days until the archive storage is full at the last 30 days’ growth (+Inf without growth)',
    [],
    archive('daysUntilFull'),
  );
}
