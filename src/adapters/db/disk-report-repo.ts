// Decisions: docs/decisions/0078-disk-space-and-a-full-disk.md
import type pg from 'pg';
import type { DiskReports } from '../../core/archive/disk-figures.js';

/** The workers' spool reports (`worker_disks`) and the archive's recent growth, in PostgreSQL. */
export function createDiskReportRepo(pool: pg.Pool): DiskReports {
  return {
    async reportSpool(workerId, space) {
      await pool.query(
        `with gone as (delete from worker_disks where reported_at < now() - interval '1 day' and worker_id <> $1)
         insert into worker_disks (worker_id, free_bytes, total_bytes, reported_at) values ($1, $2, $3, now())
         on conflict (worker_id) do update set free_bytes = excluded.free_bytes, total_bytes = excluded.total_bytes, reported_at = excluded.reported_at`,
        [workerId, space.freeBytes, space.totalBytes],
      );
    },

    async spoolsSince(since) {
      const { rows } = await pool.query<{ worker_id: string; free_bytes: string; total_bytes: string; reported_at: Date }>(
        'select worker_id, free_bytes, total_bytes, reported_at from worker_disks where reported_at >= $1 order by worker_id',
        [since],
      );
      return rows.map((row) => ({
        workerId: row.worker_id,
        freeBytes: Number(row.free_bytes),
        totalBytes: Number(row.total_bytes),
        reportedAt: row.reported_at,
      }));
    },

    async archivedBytesSince(since) {
      const { rows } = await pool.query<{ bytes: string }>(
        `select coalesce(sum(file_size_bytes), 0)::bigint as bytes from livestreams where status = 'finished' and ended_at >= $1`,
        [since],
      );
      return Number(rows[0]?.bytes ?? 0);
    },
  };
}
