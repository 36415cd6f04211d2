// Decisions: docs/decisions/0040-s3-storage.md
import type pg from 'pg';
import type { UploadJournal } from '../../core/archive/ports.js';

/** Open multipart uploads in PostgreSQL, so any worker can abort what a dead one left. */
export function createUploadJournal(pool: pg.Pool): UploadJournal {
  return {
    async started(key, uploadId) {
      await pool.query('insert into storage_uploads (upload_id, object_key) values ($1, $2) on conflict do nothing', [uploadId, key]);
    },
    async ended(uploadId) {
      await pool.query('delete from storage_uploads where upload_id = $1', [uploadId]);
    },
    async open(key) {
      const { rows } = await pool.query<{ upload_id: string }>('select upload_id from storage_uploads where object_key = $1', [key]);
      return rows.map((r) => r.upload_id);
    },
  };
}
