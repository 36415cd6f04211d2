import { requireAdmin, submitterOf, type Caller } from './account.js';
import type { AdminActionRepo } from './account-ports.js';
import { AppError } from './errors.js';
import { getLivestream } from './get-livestream.js';
import type { Livestream } from './livestream.js';
import type { LivestreamRepo, Scheduler } from './ports.js';

/**
 * An admin gives a failed record another chance: it is `upcoming` again and its source is watched
 * from now on (a capture that had begun resumes from its stored progress). Kept in the audit table.
 * Throws `admin_only`, `livestream_not_found`, `livestream_not_retryable`.
 */
export async function retryLivestream(
  deps: { livestreams: LivestreamRepo; scheduler: Scheduler; adminActions: AdminActionRepo },
  request: { caller: Caller; id: string; reason: string },
): Promise<Livestream> {
  requireAdmin(request.caller);
  const record = await getLivestream(deps, request.id);
  if (record.status !== 'failed') throw new AppError('conflict', 'livestream_not_retryable', `${record.id} is ${record.status}; only failed livestreams can be retried.`);
  await deps.livestreams.update(record.id, { status: 'upcoming', failureReason: null });
  await deps.scheduler.watch(record.id);
  await deps.adminActions.note('retry', record.id, submitterOf(request.caller.user), request.reason);
  return (await deps.livestreams.findById(record.id)) as Livestream;
}
