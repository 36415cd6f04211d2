// Decisions: docs/decisions/0102-frames-only-while-looked-at.md
import type pg from 'pg';
import type { FrameLog, FrameRequestSignal } from '../../core/capture/ports.js';

/** When a capture's recent frame was stored, on its capture row. */
export function createFrameRepo(pool: pg.Pool): FrameLog {
  return {
    async frameStored(livestreamId, workerId, at) {
      // only while this worker records it: a frame stored after the capture ended is finalize's to delete
      const { rowCount } = await pool.query(`update captures set frame_at = $3 where livestream_id = $1 and worker_id = $2 and state = 'capturing'`, [
        livestreamId,
        workerId,
        at,
      ]);
      return rowCount === 1;
    },
  };
}

/**
 * A look at a recording's recent frame, told by NOTIFY on `kura_frame_looks` (FRAME_REQUESTS_CHANNEL,
 * src/jobs/runtime/notify-channels.ts) with the record's id: every worker hears it, the one recording it acts.
 */
export function createFrameRequestSignal(pool: pg.Pool): FrameRequestSignal {
  return {
    async looked(livestreamId) {
      await pool.query({ name: 'frame-requested', text: `select pg_notify('kura_frame_looks', $1)`, values: [livestreamId] });
    },
  };
}
