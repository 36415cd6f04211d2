import type { Follow } from './follow.js';
import type { FollowRepo } from './ports.js';

/** Every follow of the instance, oldest first, with its health. */
export async function listFollows(deps: { follows: FollowRepo }): Promise<Follow[]> {
  return deps.follows.list();
}
