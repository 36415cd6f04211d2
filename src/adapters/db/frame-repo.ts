import type pg from 'pg';
import type { FrameLog } from '../../core/capture/ports.js';

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
