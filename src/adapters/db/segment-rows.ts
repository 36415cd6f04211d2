// Decisions: docs/decisions/0035-segments-on-disk-first.md, docs/decisions/0083-what-a-recording-pays-for.md
import type pg from 'pg';
import type { RecordedSegment } from '../../core/capture/capture.js';
import { groupCommit } from './group-commit.js';

/** A stored segment of one capture and its log lines (stamped). */
interface SegmentRow {
  livestreamId: string;
  segment: RecordedSegment;
  lines: readonly string[];
}

/**
 * Records stored segments of every capture in the process together (see groupCommit). Each row
 * is written as `recordSegment` says: the segment, its log lines and the capture's
 * `next_sequence` commit together, and its caller hears back once they are committed.
 */
export function createSegmentRows(pool: pg.Pool): (livestreamId: string, segment: RecordedSegment, lines: readonly string[]) => Promise<void> {
  const record = groupCommit<SegmentRow, void>(async (rows) => {
    await insert(pool, rows);
    return rows.map(() => undefined);
  });
  return (livestreamId, segment, lines) => record({ livestreamId, segment, lines });
}

function insert(pool: pg.Pool, rows: SegmentRow[]): Promise<unknown> {
  const next = new Map<string, number>();
  for (const { livestreamId, segment } of rows) next.set(livestreamId, Math.max(next.get(livestreamId) ?? 0, segment.sequence + 1));
  const lines = rows.flatMap((row) => row.lines.map((line) => [row.livestreamId, line] as const));
  // a prepared statement (named): PostgreSQL parses and plans it once per connection, not once a segment
  return pool.query({
    name: 'capture-segments-record',
    text: `with segments as (
       insert into capture_segments (livestream_id, sequence, part, end_offset, duration_seconds)
       select * from unnest($1::text[], $2::bigint[], $3::int[], $4::bigint[], $5::float8[])
       on conflict (livestream_id, sequence) do nothing),
     logged as (
       insert into capture_log_lines (livestream_id, line)
       select id, line from unnest($6::text[], $7::text[]) with ordinality as l(id, line, n) order by n)
     update captures c set next_sequence = n.next from unnest($8::text[], $9::bigint[]) as n(id, next) where c.livestream_id = n.id`,
    values: [
      rows.map((r) => r.livestreamId),
      rows.map((r) => r.segment.sequence),
      rows.map((r) => r.segment.part),
      rows.map((r) => r.segment.endOffset),
      rows.map((r) => r.segment.durationSeconds),
      lines.map(([id]) => id),
      lines.map(([, line]) => line),
      [...next.keys()],
      [...next.values()],
    ],
  });
}
