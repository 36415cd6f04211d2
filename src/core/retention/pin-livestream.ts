import { requireAdmin, type Caller } from '../accounts/account.js';
import { AppError } from '../errors.js';
import type { RetentionRepo } from './ports.js';

/** An admin pins a record (retention keeps it whatever the rules) or unpins it. Throws `admin_only`, `livestream_not_found`. */
export async function pinLivestream(
  deps: { retention: Pick<RetentionRepo, 'setPinned'> },
  request: { caller: Caller; id: string; pinned: boolean },
): Promise<void> {
  requireAdmin(request.caller);
  if (!(await deps.retention.setPinned(request.id, request.pinned))) {
    throw new AppError('not_found', 'livestream_not_found', `No livestream has the id "${request.id}".`);
  }
}
