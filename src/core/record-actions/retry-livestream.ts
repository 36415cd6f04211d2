// Decisions: docs/decisions/0024-admin-takedown-cancel-retry.md
import { requireAdmin, submitterOf, type Caller } from '../accounts/account.js';
import type { AdminActionRepo } from '../accounts/ports.js';
import { AppError } from '../errors.js';
import { getLivestream } from '../records/get-livestream.js';
import type { Livestream } from '../records/livestream.js';
import { canMove } from '../records/lifecycle.js';
import type { CaptureStates, EncoderLog, PartLog } from '../capture/ports.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { Scheduler } from '../scheduler.js';
import { reviveLivestream } from './revive-livestream.js';

/**
 * An admin gives a failed record another chance (see reviveLivestream): parts it captured are
 * made into a video again; a record with none is `upcoming` again and its source watched from now
 * on. Kept in the audit table. Throws `admin_only`, `livestream_not_found`, `livestream_not_retryable`.
 */
export async function retryLivestream(
  deps: { livestreams: LivestreamRepo; captures: CaptureStates & PartLog & EncoderLog; scheduler: Scheduler; adminActions: AdminActionRepo },
  request: { caller: Caller; id: string; reason: string },
): Promise<Livestream> {
  requireAdmin(request.caller);
  const record = await getLivestream(deps, request.id);
  if (!canMove(record.status, 'retried'))
    throw new AppError('conflict', 'livestream_not_retryable', `${record.id} is ${record.status}; only failed livestreams can be retried.`);
  const by = submitterOf(request.caller.user);
  await reviveLivestream(deps, record.id, by);
  await deps.adminActions.note('retry', record.id, by, request.reason);
  return (await deps.livestreams.findById(record.id)) as Livestream;
}
