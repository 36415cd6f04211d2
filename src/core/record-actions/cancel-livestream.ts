// Decisions: docs/decisions/0024-admin-takedown-cancel-retry.md
import { requireAdmin, submitterOf, type Caller } from '../accounts/account.js';
import type { AdminActionRepo } from '../accounts/ports.js';
import { AppError } from '../errors.js';
import { getLivestream } from '../records/get-livestream.js';
import { canMove } from '../records/lifecycle.js';
import type { Livestream } from '../records/livestream.js';
import type { CaptureStates, EncoderLog } from '../capture/ports.js';
import type { LivestreamRepo } from '../records/ports.js';

/**
 * An admin cancels a livestream. An upcoming one is no longer waited for: the record becomes
 * `failed` with the reason (its watch job then skips it). A live one is asked to stop: the worker
 * recording it ends the capture (`cancelled`) at its next heartbeat, and what was recorded is
 * archived as usual, so the record stays `live` until then (`stopping`). Either way the action is
 * kept in the audit table. Throws `admin_only`, `livestream_not_found`, `livestream_not_cancellable`.
 */
export async function cancelLivestream(
  deps: { livestreams: LivestreamRepo; captures: CaptureStates & EncoderLog; adminActions: AdminActionRepo },
  request: { caller: Caller; id: string; reason: string },
): Promise<{ record: Livestream; stopping: boolean }> {
  requireAdmin(request.caller);
  const record = await getLivestream(deps, request.id);
  const by = submitterOf(request.caller.user);
  if (!canMove(record.status, 'cancelled')) {
    throw new AppError('conflict', 'livestream_not_cancellable', `${record.id} is ${record.status}; only upcoming and live livestreams can be cancelled.`);
  }
  if (record.status === 'live') {
    if (!(await deps.captures.requestStop(record.id, `${by} (${request.reason})`))) {
      throw new AppError(
        'conflict',
        'livestream_not_cancellable',
        `${record.id} has been recorded and is being archived; it can be taken down once it is finished.`,
      );
    }
    await deps.captures.appendLog(record.id, [`[kura] ${by} asked to stop the capture: ${request.reason}`]);
  } else {
    await deps.livestreams.transition(record.id, { type: 'cancelled', reason: request.reason });
  }
  await deps.adminActions.note('cancel', record.id, by, request.reason);
  return { record: (await deps.livestreams.findById(record.id)) as Livestream, stopping: record.status === 'live' };
}
