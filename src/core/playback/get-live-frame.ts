import { objectKeys } from '../archive/object-keys.js';
import { AppError } from '../errors.js';
import { getLivestream } from '../records/get-livestream.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { CaptureStates, FrameRequestSignal } from '../capture/ports.js';

/**
 * Where the recent frame of a record being recorded is stored, and when it was taken; asking is a
 * look, which tells the worker recording it to make frames (0102). Throws `livestream_not_found`,
 * `live_ended` (the record is finished or failed: its thumbnail replaced the frame) and
 * `live_frame_not_found` (no frame stored yet: one is made now).
 */
export async function getLiveFrame(
  deps: { livestreams: LivestreamRepo; captures: CaptureStates; looks: FrameRequestSignal },
  id: string,
): Promise<{ key: string; takenAt: Date }> {
  const record = await getLivestream(deps, id);
  if (record.status === 'finished' || record.status === 'failed') {
    throw new AppError('gone', 'live_ended', `${id} is no longer being recorded (status: ${record.status}); its thumbnail replaces the recent frame.`);
  }
  await deps.looks.looked(id);
  // after the capture ended, the frame stays until finalize stores the archive (and deletes it)
  const capture = await deps.captures.get(id);
  if (capture === null || capture.frameAt === null) {
    throw new AppError(
      'not_found',
      'live_frame_not_found',
      `${id} has no recent frame yet: one is made now (once its first segments are recorded), and its URL is on the record's capture progress.`,
    );
  }
  return { key: objectKeys.liveFrame(id), takenAt: capture.frameAt };
}
