import { requireAdmin, submitterOf, type Caller } from './account.js';
import type { AdminActionRepo } from './account-ports.js';
import { AppError } from './errors.js';
import { getLivestream } from './get-livestream.js';
import type { Livestream } from './livestream.js';
import type { LivestreamRepo } from './ports.js';

/**
 * An admin stops waiting for an upcoming stream: the record becomes `failed` with the reason (its
 * watch job then skips it), and the action is kept in the audit table. A capture in progress is
 * not stopped here (the capture engine has no stop signal yet): `capture_in_progress`.
 * Throws `admin_only`, `livestream_not_found`, `capture_in_progress`, `livestream_not_cancellable`.
 */
export async function cancelLivestream(
  deps: { livestreams: LivestreamRepo; adminActions: AdminActionRepo },
  request: { caller: Caller; id: string; reason: string },
): Promise<Livestream> {
  requireAdmin(request.caller);
  const record = await getLivestream(deps, request.id);
  if (record.status === 'live') throw new AppError('conflict', 'capture_in_progress', `${record.id} is being recorded and cannot be cancelled yet.`);
  if (record.status !== 'upcoming') throw new AppError('conflict', 'livestream_not_cancellable', `${record.id} is ${record.status}; only upcoming livestreams can be cancelled.`);
  await deps.livestreams.update(record.id, { status: 'failed', failureReason: `Cancelled by an admin: ${request.reason}` });
  await deps.adminActions.note('cancel', record.id, submitterOf(request.caller.user), request.reason);
  return (await deps.livestreams.findById(record.id)) as Livestream;
}
