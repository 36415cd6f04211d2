// Decisions: docs/decisions/0022-final-failure-keeps-what-was-captured.md
import { AppError } from '../errors.js';
import { canMove } from '../records/lifecycle.js';
import type { CaptureStates, EncoderLog } from '../capture/ports.js';
import type { LivestreamRepo } from '../records/ports.js';

/**
 * Kura gives up on a record: it becomes `failed` with `reason` (words for people), an open
 * capture is ended, and the encoder log says why. What was captured stays in the store for an
 * admin's retry. A record that has finished or failed already is left alone; returns whether
 * this call failed it.
 */
export async function failLivestream(
  deps: { livestreams: LivestreamRepo; captures: CaptureStates & EncoderLog },
  id: string,
  reason: string,
): Promise<boolean> {
  const record = await deps.livestreams.findById(id);
  if (record === null || !canMove(record.status, 'gave_up')) return false;
  try {
    await deps.livestreams.transition(id, { type: 'gave_up', reason, ...(record.status === 'live' ? { endedAt: new Date() } : {}) });
  } catch (error) {
    // it finished or failed meanwhile (the transition re-reads it under a lock)
    if (error instanceof AppError && error.code === 'livestream_state_conflict') return false;
    throw error;
  }
  await deps.captures.end(id, 'failed'); // only a capture still recording; its parts are kept
  await deps.captures.appendLog(id, [`[kura] failed: ${reason}`]);
  return true;
}
