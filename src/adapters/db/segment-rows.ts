import type pg from 'pg';
import type { StoredSegment } from '../../core/capture/capture.js';
import { isConnectionLoss } from './connection-loss.js';

/** A stored segment of one capture, its log lines (stamped) and the caller waiting for them. */
interface SegmentRow {
  livestreamId: string;
  segment: StoredSegment;
  lines: readonly string[];
  done: { resolve: () => void; reject: (error: unknown) => void };
}

/**
 * Records stored segments of every capture in the process together (group commit): while one
 * statement is on its way, the segments that arrive meanwhile wait and go in the next one, so
 * 100 captures make a few statements a second instead of 100 and a segment waits at most for
 * one statement ahead of its own. Each row is written as `recordSegment` says: the segment, its
 * log lines and the capture's `next_sequence` commit together; a caller hears back once its row
 * is committed. A statement refused for one capture's row (not a lost connection) is split, so
 * it fails that capture alone.
 */
export function createSegmentRows(pool: pg.Pool): (livestreamId: string, segment: StoredSegment, lines: readonly string[]) => Promise<void> {
  let waiting: SegmentRow[] = [];
  let writing = false;

  const writeWaiting = async () => {
    writing = true;
    await new Promise<void>((resolve) => setImmediate(resolve)); // the rows that arrive within this turn go together
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      await writeBatch(pool, batch);
    }
    writing = false;
  };

  return (livestreamId, segment, lines) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ livestreamId, segment, lines, done: { resolve, reject } });
      if (!writing) void writeWaiting();
    });
}

async function writeBatch(pool: pg.Pool, batch: SegmentRow[]): Promise<void> {
  try {
    await insert(pool, batch);
    for (const row of batch) row.done.resolve();
  } catch (error) {
    if (batch.length === 1 || isConnectionLoss(error)) {
      for (const row of batch) row.done.reject(error);
      return;
    }
    for (const row of batch) await writeBatch(pool, [row]);
  }
}

function insert(pool: pg.Pool, rows: SegmentRow[]): Promise<unknown> {
  const next = new Map<string, number>();
  for (const { livestreamId, segment } of rows) next.set(livestreamId, Math.max(next.get(livestreamId) ?? 0, segment.sequence + 1));
  const lines = rows.flatMap((row) => row.lines.map((line) => [row.livestreamId, line] as const));
  return pool.query(
    `with segments as (
       insert into capture_segments (livestream_id, sequence, part, end_offset, duration_seconds)
       select * from unnest($1::text[], $2::bigint[], $3::int[], $4::bigint[], $5::float8[])
       on conflict (livestream_id, sequence) do nothing),
     logged as (
       insert into capture_log_lines (livestream_id, line)
       select id, line from unnest($6::text[], $7::text[]) with ordinality as l(id, line, n) order by n)
     update captures c set next_sequence = n.next from unnest($8::text[], $9::bigint[]) as n(id, next) where c.livestream_id = n.id`,
    [
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
  );
}
