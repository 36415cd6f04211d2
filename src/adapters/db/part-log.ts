// Decisions: docs/decisions/0112-finalized-captures-keep-summaries.md
import type pg from 'pg';
import type { AdBreak, CapturePart, Gap, RecordedSegment } from '../../core/capture/capture.js';
import type { PartLog } from '../../core/capture/ports.js';

/** What a capture recorded, as readers see it. */
export function createPartLog(pool: pg.Pool): PartLog {
  return {
    async parts(livestreamId) {
      // a finalized capture's summary, or (recording, ended, kept) its segments: never both (decision 0112)
      const { rows } = await pool.query(
        `select p.part, p.bytes, p.segments, p.seconds
         from captures c, jsonb_to_recordset(c.part_summary) as p(part integer, bytes bigint, segments integer, seconds double precision)
         where c.livestream_id = $1
         union all
         select part, max(end_offset), count(*)::int, sum(duration_seconds) from capture_segments where livestream_id = $1 group by part
         order by part`,
        [livestreamId],
      );
      return rows.map((r) => ({ part: r.part, bytes: r.bytes, segments: r.segments, seconds: r.seconds }) satisfies CapturePart);
    },

    async gaps(livestreamId) {
      const { rows } = await pool.query(
        'select first_sequence, last_sequence, seconds, reason, at_seconds from capture_gaps where livestream_id = $1 order by first_sequence',
        [livestreamId],
      );
      return rows.map(
        (r) =>
          ({ firstSequence: r.first_sequence, lastSequence: r.last_sequence, seconds: r.seconds, reason: r.reason, atSeconds: r.at_seconds }) satisfies Gap,
      );
    },

    async adBreaks(livestreamId) {
      const { rows } = await pool.query(
        'select first_sequence, last_sequence, seconds, at_seconds from capture_ad_breaks where livestream_id = $1 order by first_sequence',
        [livestreamId],
      );
      return rows.map(
        (r) =>
          ({ firstSequence: Number(r.first_sequence), lastSequence: Number(r.last_sequence), seconds: r.seconds, atSeconds: r.at_seconds }) satisfies AdBreak,
      );
    },

    async segmentsFrom(livestreamId, sequence) {
      const { rows } = await pool.query(
        'select sequence, part, end_offset, duration_seconds from capture_segments where livestream_id = $1 and sequence >= $2 order by sequence',
        [livestreamId, sequence],
      );
      return rows.map(toSegment);
    },

    async segment(livestreamId, sequence) {
      const { rows } = await pool.query(
        `select s.sequence, s.part, s.end_offset, s.duration_seconds,
           coalesce((select p.end_offset from capture_segments p
                     where p.livestream_id = s.livestream_id and p.part = s.part and p.sequence < s.sequence
                     order by p.sequence desc limit 1), 0) as start_offset
         from capture_segments s where s.livestream_id = $1 and s.sequence = $2`,
        [livestreamId, sequence],
      );
      return rows[0] ? { ...toSegment(rows[0]), startOffset: Number(rows[0].start_offset) } : null;
    },
  };
}

export function toSegment(row: { sequence: string | number; part: number; end_offset: string | number; duration_seconds: number }): RecordedSegment {
  return { sequence: Number(row.sequence), part: row.part, endOffset: Number(row.end_offset), durationSeconds: row.duration_seconds };
}
