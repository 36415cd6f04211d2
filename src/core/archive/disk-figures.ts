// Decisions: docs/decisions/0078-disk-space-and-a-full-disk.md, docs/decisions/0101-an-idle-kura-writes-nothing.md
/** A filesystem's space, as statfs reads it: what an unprivileged process may still write, and its size. */
export interface DiskSpace {
  freeBytes: number;
  totalBytes: number;
}

/** A worker's spool, as the worker last reported it (each worker reports its own: the api may run elsewhere). */
export interface SpoolDisk extends DiskSpace {
  workerId: string;
  reportedAt: Date;
}

/** Where the disk figures come from: the workers' reports and the archives of the last days, in PostgreSQL. */
export interface DiskReports {
  /** Notes `workerId`'s spool space now; reports older than a day are forgotten. */
  reportSpool(workerId: string, space: DiskSpace): Promise<void>;
  /** The spools reported since `since`, by worker id. */
  spoolsSince(since: Date): Promise<SpoolDisk[]>;
  /** Bytes of the archives finished since `since`. */
  archivedBytesSince(since: Date): Promise<number>;
}

/** The archive store's space: a local filesystem's, or none for S3 (a bucket has no size). */
export type ArchiveDisk = ({ storage: 'local' } & DiskSpace & { daysUntilFull: number | null }) | { storage: 's3' };

/** A place below `LOW_FREE_SHARE` free: the archive storage, or a worker's spool. */
export interface LowDisk extends DiskSpace {
  place: 'archive' | 'spool';
  /** The worker whose spool it is; null for the archive storage. */
  workerId: string | null;
  freePercent: number;
}

/** The free and total space Kura writes to, with what is nearly full. */
export interface DiskFigures {
  archive: ArchiveDisk;
  /** Bytes of archives finished in the last `GROWTH_DAYS` days: the growth the archive's days until full are estimated at. */
  archivedBytesLast30Days: number;
  spools: SpoolDisk[];
  low: LowDisk[];
}

/** A place with less free than this share of its size is shown to admins as nearly full. */
export const LOW_FREE_SHARE = 0.1;
/** The archive's growth is measured over this many days. */
export const GROWTH_DAYS = 30;
/** A worker looks at its spool this often (seconds). */
export const SPOOL_REPORT_SECONDS = 60;
/**
 * A spool's report is written again at least this often, changed or not: an idle archive then
 * writes nothing for half an hour, and its PostgreSQL does not checkpoint (decision 0101).
 */
const SPOOL_REWRITE_MS = 30 * 60 * 1000;
/** A worker not heard from for this long is left out (gone): its rewrite, and five minutes. */
const SPOOL_FRESH_MS = SPOOL_REWRITE_MS + 5 * 60 * 1000;
/** A spool's free space that moved by less than this share of its size since the last report is not written. */
const SPOOL_CHANGE_SHARE = 0.001;
const DAY_MS = 86_400_000;

/** The last report a worker wrote of its spool, and when. */
export interface SpoolReport {
  space: DiskSpace;
  atMs: number;
}

/**
 * Whether a worker's look at its spool is worth writing: the first, one whose free space moved by
 * a thousandth of its size or more, or one half an hour after the last written (so the report
 * stays fresh). An idle worker writes every half hour, not every minute.
 */
export function spoolReportDue(last: SpoolReport | null, space: DiskSpace, nowMs: number): boolean {
  if (last === null || nowMs - last.atMs >= SPOOL_REWRITE_MS || space.totalBytes !== last.space.totalBytes) return true;
  return Math.abs(space.freeBytes - last.space.freeBytes) >= space.totalBytes * SPOOL_CHANGE_SHARE;
}

/** Whole days until `freeBytes` are filled at `grownBytes` per `GROWTH_DAYS` days; null without growth. */
export function daysUntilFull(freeBytes: number, grownBytes: number): number | null {
  if (grownBytes <= 0) return null;
  return Math.floor(freeBytes / (grownBytes / GROWTH_DAYS));
}

function lowOf(place: LowDisk['place'], workerId: string | null, space: DiskSpace): LowDisk[] {
  if (space.totalBytes <= 0 || space.freeBytes >= space.totalBytes * LOW_FREE_SHARE) return [];
  const freePercent = Math.round((space.freeBytes / space.totalBytes) * 1000) / 10;
  return [{ place, workerId, freeBytes: space.freeBytes, totalBytes: space.totalBytes, freePercent }];
}

/**
 * The disk figures: the archive storage's space (`archiveSpace` null: S3) with its days until
 * full at the last 30 days' growth, and each live worker's spool as it reported it.
 */
export async function getDiskFigures(deps: { reports: DiskReports; archiveSpace: (() => Promise<DiskSpace>) | null }, now: Date): Promise<DiskFigures> {
  const [space, grown, spools] = await Promise.all([
    deps.archiveSpace?.() ?? Promise.resolve(null),
    deps.reports.archivedBytesSince(new Date(now.getTime() - GROWTH_DAYS * DAY_MS)),
    deps.reports.spoolsSince(new Date(now.getTime() - SPOOL_FRESH_MS)),
  ]);
  const archive: ArchiveDisk = space === null ? { storage: 's3' } : { storage: 'local', ...space, daysUntilFull: daysUntilFull(space.freeBytes, grown) };
  const low = [...(space === null ? [] : lowOf('archive', null, space)), ...spools.flatMap((spool) => lowOf('spool', spool.workerId, spool))];
  return { archive, archivedBytesLast30Days: grown, spools, low };
}
