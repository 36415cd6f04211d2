// Decisions: docs/decisions/0041-downloads-and-encoder-log.md, docs/decisions/0083-what-a-recording-pays-for.md, docs/decisions/0092-leases-and-worker-sessions.md
import { redactUrlsIn } from '../../core/sources/public-url.js';
import type pg from 'pg';
import type { Capture, FragmentFormatIds, StoredChunk } from '../../core/capture/capture.js';
import type { AudioLane } from '../../core/sources/ports.js';
import type { CaptureLease, CaptureRepo, CaptureStates, ChunkLog, EncoderLog, SegmentLog } from '../../core/capture/ports.js';
import { createLeaseRenewals } from './capture-leases.js';
import { createCaptureCompaction } from './finalized-summaries.js';
import { createPartLog, toSegment } from './part-log.js';
import { createSegmentRows } from './segment-rows.js';

/** Most encoder log lines kept per capture; older ones are dropped from /api/logz and the log file. */
const MAX_LOG_LINES = 200_000;

interface CaptureRow {
  livestream_id: string;
  playlist_url: string | null;
  fragment_formats: FragmentFormatIds | null;
  audio_lanes: AudioLane[];
  state: Capture['state'];
  end_reason: string | null;
  stop_requested: string | null;
  worker_id: string | null;
  heartbeat_at: Date | null;
  next_sequence: number | null;
  current_part: number;
  started_at: Date;
  ended_at: Date | null;
  frame_at: Date | null;
  kept_until: Date | null;
}

/** Capture progress in PostgreSQL. */
/**
 * Where sequence $4 lies on a recording's timeline while its segments are kept: the seconds stored
 * before it, and the stretches lost after the first stored segment (as capture_gaps.at_seconds is
 * placed at compaction); null before the first stored segment.
 */
const TIMELINE_AT = `case when exists (select from capture_segments where livestream_id = $1 and sequence < $4) then
    (select coalesce(sum(duration_seconds), 0) from capture_segments where livestream_id = $1 and sequence < $4)
    + (select coalesce(sum(seconds), 0) from capture_gaps where livestream_id = $1 and first_sequence < $4
         and first_sequence > (select min(sequence) from capture_segments where livestream_id = $1))
  end`;

export function createCaptureRepo(pool: pg.Pool): CaptureRepo {
  return {
    ...captureLeases(pool),
    ...captureStates(pool),
    ...segmentLog(pool),
    ...createPartLog(pool),
    ...chunkAndEncoderLog(pool),
    ...createCaptureCompaction(pool),
  };
}

/** Which worker holds a capture. */
function captureLeases(pool: pg.Pool): CaptureLease {
  const leases = createLeaseRenewals(pool);

  return {
    async claim(livestreamId, workerId, staleAfterSeconds) {
      // a new capture starts `capturing`; an existing one is taken only as CAPTURE_TRANSITIONS allows `claimed`
      const { rows } = await pool.query<CaptureRow>(
        `insert into captures as c (livestream_id, worker_id, heartbeat_at) values ($1, $2, now())
         on conflict (livestream_id) do update set worker_id = excluded.worker_id, heartbeat_at = now()
           where c.state = 'capturing' and (c.worker_id is null or c.worker_id = excluded.worker_id
             or c.heartbeat_at < now() - make_interval(secs => $3) or c.worker_id in (select worker_id from gone_workers))
         returning *`,
        [livestreamId, workerId, staleAfterSeconds],
      );
      return rows[0] ? toCapture(rows[0]) : null;
    },

    async claimFinalize(livestreamId, workerId, staleAfterSeconds) {
      // the state clause is `finalize_claimed` of CAPTURE_TRANSITIONS (core/capture/capture-lifecycle.ts)
      const { rows } = await pool.query<CaptureRow>(
        `update captures set worker_id = $2, heartbeat_at = now()
         where livestream_id = $1 and state = 'ended'
           and (worker_id is null or worker_id = $2 or heartbeat_at < now() - make_interval(secs => $3) or worker_id in (select worker_id from gone_workers))
         returning *`,
        [livestreamId, workerId, staleAfterSeconds],
      );
      return rows[0] ? toCapture(rows[0]) : null;
    },

    async release(livestreamId, workerId) {
      await pool.query(`update captures set worker_id = null where livestream_id = $1 and worker_id = $2`, [livestreamId, workerId]);
    },

    heartbeat: leases.heartbeat,

    leases: leases.stale,
  };
}

/** The capture's own state. */
function captureStates(pool: pg.Pool): CaptureStates {
  return {
    async requestStop(livestreamId, reason) {
      // the state clause is `stop_requested` of CAPTURE_TRANSITIONS (core/capture/capture-lifecycle.ts)
      const { rowCount } = await pool.query(`update captures set stop_requested = $2 where livestream_id = $1 and state = 'capturing'`, [livestreamId, reason]);
      return rowCount === 1;
    },

    async setPlaylist(livestreamId, playlistUrl, audio) {
      // without `audio`, the lanes stay as they are (a renewed URL of the same playlist)
      await pool.query('update captures set playlist_url = $2, audio_lanes = coalesce($3, audio_lanes) where livestream_id = $1', [
        livestreamId,
        playlistUrl,
        audio === undefined ? null : JSON.stringify(audio),
      ]);
    },

    async setFragmentFormats(livestreamId, formats) {
      await pool.query('update captures set fragment_formats = $2 where livestream_id = $1', [livestreamId, formats === null ? null : JSON.stringify(formats)]);
    },

    async end(livestreamId, reason) {
      // the state clause is `ended` of CAPTURE_TRANSITIONS (core/capture/capture-lifecycle.ts): ending an ended capture changes nothing
      await pool.query(
        `update captures set state = 'ended', end_reason = $2, ended_at = now(), worker_id = null
         where livestream_id = $1 and state = 'capturing'`,
        [livestreamId, reason],
      );
    },

    async markFinalized(livestreamId) {
      // `finalized` of CAPTURE_TRANSITIONS (core/capture/capture-lifecycle.ts): its caller holds the finalize
      // claim (`finalize_claimed`), which only an ended capture gives; one the record's `archived` kept stays kept
      await pool.query(`update captures set state = 'finalized', worker_id = null where livestream_id = $1 and state = 'ended'`, [livestreamId]);
    },

    async letGo(livestreamId) {
      // `let_go` of CAPTURE_TRANSITIONS (core/capture/capture-lifecycle.ts)
      const { rowCount } = await pool.query(`update captures set state = 'finalized', kept_until = null where livestream_id = $1 and state = 'kept'`, [
        livestreamId,
      ]);
      return rowCount === 1;
    },

    async get(livestreamId) {
      const { rows } = await pool.query<CaptureRow>('select * from captures where livestream_id = $1', [livestreamId]);
      return rows[0] ? toCapture(rows[0]) : null;
    },

    async latestRunning() {
      // recording: the state isRecording (core/capture/capture-lifecycle.ts) names
      const { rows } = await pool.query<{ livestream_id: string }>(
        `select livestream_id from captures where state = 'capturing' order by started_at desc limit 1`,
      );
      return rows[0]?.livestream_id ?? null;
    },

    async forget(livestreamId) {
      const { rowCount } = await pool.query(
        `delete from captures c where c.livestream_id = $1 and coalesce(c.part_summary, '[]') = '[]'
           and not exists (select 1 from capture_segments s where s.livestream_id = c.livestream_id)`,
        [livestreamId],
      );
      return rowCount === 1;
    },
  };
}

/** The recorder's progress, segment by segment. */
function segmentLog(pool: pg.Pool): SegmentLog {
  // the hot path of 100 captures: one statement carries the segments of many (see createSegmentRows)
  const recordSegments = createSegmentRows(pool);

  return {
    recordSegment(livestreamId, segment, log) {
      return recordSegments(livestreamId, segment, stamped(log));
    },

    async recordGap(livestreamId, gap, log) {
      // one round trip: the gap, its log lines and the new `next_sequence` commit together
      await pool.query(
        `with gap as (insert into capture_gaps (livestream_id, first_sequence, last_sequence, seconds, reason)
                      values ($1, $4, $5, $6, $7) on conflict (livestream_id, first_sequence) do nothing),
         logged as (insert into capture_log_lines (livestream_id, line) select $1, unnest($3::text[]))
         update captures set next_sequence = $2 where livestream_id = $1`,
        [livestreamId, gap.lastSequence + 1, stamped(log), gap.firstSequence, gap.lastSequence, gap.seconds, gap.reason],
      );
    },

    async recordAdBreak(livestreamId, cut, log) {
      // one break for a run of ads: a cut right after the last one lengthens it (a break spans polls)
      await pool.query(
        `with longer as (update capture_ad_breaks set last_sequence = $5, seconds = seconds + $6
                         where livestream_id = $1 and last_sequence = $4 - 1 returning 1),
         placed as (insert into capture_ad_breaks (livestream_id, first_sequence, last_sequence, seconds, at_seconds)
                    select $1, $4, $5, $6, ${TIMELINE_AT} where not exists (select from longer)
                    on conflict (livestream_id, first_sequence) do nothing),
         logged as (insert into capture_log_lines (livestream_id, line) select $1, unnest($3::text[]))
         update captures set next_sequence = $2 where livestream_id = $1`,
        [livestreamId, cut.lastSequence + 1, stamped(log), cut.firstSequence, cut.lastSequence, cut.seconds],
      );
    },

    async rewind(livestreamId, sequence, part) {
      await pool.query(
        `with segments as (delete from capture_segments where livestream_id = $1 and sequence >= $2),
         gaps as (delete from capture_gaps where livestream_id = $1 and first_sequence >= $2),
         ads as (delete from capture_ad_breaks where livestream_id = $1 and first_sequence >= $2)
         update captures set next_sequence = $2, current_part = $3 where livestream_id = $1`,
        [livestreamId, sequence, part],
      );
    },

    async startPart(livestreamId, part) {
      await pool.query('update captures set current_part = $2 where livestream_id = $1', [livestreamId, part]);
    },

    async lastSegmentOfPart(livestreamId, part) {
      const { rows } = await pool.query(
        `select sequence, part, end_offset, duration_seconds from capture_segments
         where livestream_id = $1 and part = $2 order by sequence desc limit 1`,
        [livestreamId, part],
      );
      return rows[0] ? toSegment(rows[0]) : null;
    },

    async firstSegmentPast(livestreamId, part, offset) {
      const { rows } = await pool.query(
        `select sequence, part, end_offset, duration_seconds from capture_segments
         where livestream_id = $1 and part = $2 and end_offset > $3 order by sequence limit 1`,
        [livestreamId, part, offset],
      );
      return rows[0] ? toSegment(rows[0]) : null;
    },
  };
}

/** The stored chunks of a capture's parts, and its encoder log. */
function chunkAndEncoderLog(pool: pg.Pool): ChunkLog & EncoderLog {
  return {
    async recordChunk(livestreamId, workerId, chunk) {
      // the state clause is `chunk_stored` of CAPTURE_TRANSITIONS (core/capture/capture-lifecycle.ts)
      const { rowCount } = await pool.query(
        `insert into capture_chunks (livestream_id, part, start_offset, end_offset, object_key)
         select $1, $3, $4, $5, $6 from captures where livestream_id = $1 and worker_id = $2 and state = 'capturing'
         on conflict (livestream_id, part, start_offset) do nothing`,
        [livestreamId, workerId, chunk.part, chunk.startOffset, chunk.endOffset, chunk.key],
      );
      return rowCount === 1;
    },

    async chunks(livestreamId) {
      const { rows } = await pool.query(
        `select part, start_offset, end_offset, object_key from capture_chunks where livestream_id = $1 order by part, start_offset`,
        [livestreamId],
      );
      return rows.map((r) => ({ part: r.part, startOffset: Number(r.start_offset), endOffset: Number(r.end_offset), key: r.object_key }) satisfies StoredChunk);
    },

    async appendLog(livestreamId, lines) {
      if (lines.length === 0) return;
      await pool.query('insert into capture_log_lines (livestream_id, line) select $1, unnest($2::text[])', [livestreamId, stamped(lines)]);
    },

    async readLog(livestreamId) {
      const { rows } = await pool.query<{ line: string }>(
        `select line from (select id, line from capture_log_lines where livestream_id = $1 order by id desc limit $2) last
         order by id`,
        [livestreamId, MAX_LOG_LINES],
      );
      return rows.map((r) => `${r.line}\n`).join('');
    },
  };
}

/** Log lines as kept: timestamped, every URL in them redacted (the encoder log is public, and a source's URLs may carry tokens). */
function stamped(lines: readonly string[]): string[] {
  const now = new Date().toISOString();
  return lines.map((line) => `${now} ${redactUrlsIn(line)}`);
}

function toCapture(row: CaptureRow): Capture {
  return {
    livestreamId: row.livestream_id,
    playlistUrl: row.playlist_url,
    fragmentFormats: row.fragment_formats,
    audioLanes: row.audio_lanes,
    state: row.state,
    endReason: row.end_reason,
    stopRequested: row.stop_requested,
    workerId: row.worker_id,
    heartbeatAt: row.heartbeat_at,
    nextSequence: row.next_sequence,
    currentPart: row.current_part,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    frameAt: row.frame_at,
    keptUntil: row.kept_until,
  };
}
