import { isFinalized } from '../capture/capture-lifecycle.js';
import type { CaptureStates, EncoderLog, PartLog } from '../capture/ports.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { Scheduler } from '../scheduler.js';

/**
 * Gives a failed record another go, through the lifecycle. When its capture holds parts (kept
 * in the store when it failed), they are finalized again: the record is `live` until finalize
 * archives them or fails again. Otherwise the source is watched again (`upcoming`) and recorded
 * afresh. Says which in the encoder log; returns which. Throws `livestream_state_conflict`
 * unless the record is failed.
 */
export async function reviveLivestream(
  deps: { livestreams: LivestreamRepo; captures: CaptureStates & PartLog & EncoderLog; scheduler: Scheduler },
  id: string,
  by: string,
): Promise<'finalize' | 'watch'> {
  const capture = await deps.captures.get(id);
  const hasParts = capture !== null && !isFinalized(capture.state) && (await deps.captures.parts(id)).length > 0;
  if (hasParts) {
    await deps.livestreams.transition(id, { type: 'retried_finalize' });
    await deps.captures.end(id, 'failed'); // one left recording when its record failed is finalized as it is
    await deps.captures.appendLog(id, [`[kura] ${by} retried: the captured parts are made into a video again`]);
    await deps.scheduler.finalize(id);
    return 'finalize';
  }
  await deps.livestreams.transition(id, { type: 'retried' });
  await deps.captures.forget(id); // nothing stored: the next capture starts afresh
  await deps.captures.appendLog(id, [`[kura] ${by} retried: the source is watched again`]);
  await deps.scheduler.watch(id);
  return 'watch';
}
