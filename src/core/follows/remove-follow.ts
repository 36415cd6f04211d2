import { AppError } from '../errors.js';
import type { FollowRepo } from './ports.js';

/** Stops following; the streams it queued stay queued and its archives stay. Throws `follow_not_found`. */
export async function removeFollow(deps: { follows: FollowRepo }, id: string): Promise<void> {
  if (!(await deps.follows.remove(id))) throw new AppError('not_found', 'follow_not_found', `No follow has the id "${id}".`);
}
