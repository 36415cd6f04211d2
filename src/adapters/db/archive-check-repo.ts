// Decisions: docs/decisions/0052-archive-integrity.md
import type pg from 'pg';
import type { ArchiveCheckRepo, IntegrityCounts, StoredArchive } from '../../core/archive/integrity.js';
import type { Integrity } from '../../core/vocabulary.js';
import { inTransaction } from './pool.js';

interface ArchiveRow {
  id: string;
  video_key: string;
  file_size_bytes: number | null;
  sha256: string | null;
  integrity: Integrity | null;
}

const ARCHIVE_COLUMNS = 'l.id, l.video_key, l.file_size_bytes, l.sha256, l.integrity';
/** Archives Kura stores; imported records with an external URL have no video key and are never checked. */
const STORED = 'l.video_key is not null';

/**
 * Verification bookkeeping: the finding on the record (`livestreams.integrity`, written only when
 * it changes, so a routine check fires none of the records' triggers) and the times of the checks
 * (`archive_checks`). Picking the archives checked longest ago joins every stored archive (never
 * checked ones have no row): one scan of about 100 ms per 100k archives, once an hour.
 */
export function createArchiveCheckRepo(pool: pg.Pool): ArchiveCheckRepo {
  const select = async (sql: string, values: unknown[]) => (await pool.query<ArchiveRow>(sql, values)).rows.map(toStoredArchive);
  return {
    async find(id) {
      return (await select(`select ${ARCHIVE_COLUMNS} from livestreams l where l.id = $1 and ${STORED}`, [id]))[0] ?? null;
    },

    leastRecentlyChecked(before, limit) {
      return select(
        `select ${ARCHIVE_COLUMNS} from livestreams l left join archive_checks c on c.livestream_id = l.id
         where ${STORED} and (c.verified_at is null or c.verified_at < $1)
         order by c.verified_at asc nulls first, l.id limit $2`,
        [before, limit],
      );
    },

    leastRecentlyHashed(before, limit) {
      return select(
        `select ${ARCHIVE_COLUMNS} from livestreams l left join archive_checks c on c.livestream_id = l.id
         where ${STORED} and l.sha256 is not null and (c.hashed_at is null or c.hashed_at < $1)
         order by c.hashed_at asc nulls first, l.id limit $2`,
        [before, limit],
      );
    },

    page(afterId, limit) {
      return select(`select ${ARCHIVE_COLUMNS} from livestreams l where ${STORED} and l.id > $1 order by l.id limit $2`, [afterId, limit]);
    },

    async record(archive, finding) {
      await inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ integrity: Integrity | null }>(`select integrity from livestreams where id = $1 and video_key = $2 for update`, [
          archive.id,
          archive.videoKey,
        ]);
        const current = rows[0];
        if (current === undefined) return; // taken down, or archived anew, while it was checked
        await client.query(
          `insert into archive_checks as c (livestream_id, verified_at, hashed_at) values ($1, $2, case when $3 then $2::timestamptz end)
           on conflict (livestream_id) do update set verified_at = excluded.verified_at, hashed_at = coalesce(excluded.hashed_at, c.hashed_at)`,
          [archive.id, finding.at, finding.hashed],
        );
        if (current.integrity !== finding.integrity) {
          await client.query(`update livestreams set integrity = $2 where id = $1`, [archive.id, finding.integrity]);
        }
      });
    },

    async counts() {
      const { rows } = await pool.query<{ integrity: Integrity | null; n: number }>(
        `select l.integrity, count(*)::int as n from livestreams l where ${STORED} group by l.integrity`,
      );
      const counts: IntegrityCounts = { ok: 0, missing: 0, corrupt: 0, unverified: 0 };
      for (const row of rows) counts[row.integrity ?? 'unverified'] = row.n;
      return counts;
    },
  };
}

function toStoredArchive(row: ArchiveRow): StoredArchive {
  return { id: row.id, videoKey: row.video_key, fileSizeBytes: row.file_size_bytes ?? 0, sha256: row.sha256, integrity: row.integrity };
}
