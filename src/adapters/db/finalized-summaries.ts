// Decisions: docs/decisions/0112-finalized-captures-keep-summaries.md
import type pg from 'pg';
import type { CaptureCompaction } from '../../core/capture/ports.js';
import { archiveStartOf } from './chat-repo.js';

/**
 * One statement compacts the finalized captures `chosen` selects (a CTE of `livestream_id`s): each
 * keeps one summary of its parts instead of its segments, its lost stretches their places on the
 * timeline, and its chat its 0 s, which were worked out from those segments (the statement reads
 * one snapshot, so before they are deleted).
 * The chat's messages go too when the stored chat file holds them (the record finished with an
 * archive, and its chat was neither absent nor still followed); a failed record's stay.
 */
function compactionSql(chosen: string): string {
  return `with chosen as (${chosen}),
    parts as (
      select s.livestream_id, s.part, max(s.end_offset) as bytes, count(*)::int as segments, sum(s.duration_seconds) as seconds
      from capture_segments s join chosen using (livestream_id) group by s.livestream_id, s.part),
    filed as (
      update chat_captures ch set archive_start = ${archiveStartOf('ch.livestream_id')},
        filed_at = case when ch.state in ('ended', 'failed') and l.status = 'finished' and l.video_key is not null then now() end
      from chosen, livestreams l
      where ch.livestream_id = chosen.livestream_id and l.id = ch.livestream_id and ch.filed_at is null
      returning ch.livestream_id, ch.filed_at),
    messages as (delete from chat_messages m using filed where m.livestream_id = filed.livestream_id and filed.filed_at is not null),
    placed as (
      update capture_gaps g set at_seconds =
        (select coalesce(sum(s.duration_seconds), 0) from capture_segments s where s.livestream_id = g.livestream_id and s.sequence < g.first_sequence)
        + (select coalesce(sum(e.seconds), 0) from capture_gaps e where e.livestream_id = g.livestream_id and e.first_sequence < g.first_sequence
             and e.first_sequence > (select min(s.sequence) from capture_segments s where s.livestream_id = g.livestream_id))
      from chosen
      where g.livestream_id = chosen.livestream_id
        and g.first_sequence > (select min(s.sequence) from capture_segments s where s.livestream_id = g.livestream_id)),
    segments as (delete from capture_segments s using chosen where s.livestream_id = chosen.livestream_id)
    update captures c set part_summary = coalesce(
      (select jsonb_agg(jsonb_build_object('part', p.part, 'bytes', p.bytes, 'segments', p.segments, 'seconds', p.seconds) order by p.part)
       from parts p where p.livestream_id = c.livestream_id), '[]')
    from chosen where c.livestream_id = chosen.livestream_id`;
}

/** Finalized captures' summaries in PostgreSQL (migration 0034). */
export function createCaptureCompaction(pool: pg.Pool): CaptureCompaction {
  const one = compactionSql(`select livestream_id from captures where livestream_id = $1 and state = 'finalized' and part_summary is null for update`);
  // skip locked: two workers' sweeps share the leftovers instead of waiting on each other's
  const leftovers = compactionSql(
    `select livestream_id from captures where state = 'finalized' and part_summary is null order by livestream_id limit $1 for update skip locked`,
  );
  return {
    async compact(livestreamId) {
      const { rowCount } = await pool.query(one, [livestreamId]);
      return rowCount === 1;
    },

    async compactLeftovers(batch) {
      const { rowCount } = await pool.query(leftovers, [batch]);
      return rowCount ?? 0;
    },
  };
}
