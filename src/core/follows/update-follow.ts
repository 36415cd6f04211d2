import type { Follow, FollowChange } from './follow.js';
import type { FollowRepo } from './ports.js';

/**
 * Changes a follow's rules, names or pause. Rules are checked as at creation (`invalid_follow`);
 * resuming a paused follow makes it due now. Throws `follow_not_found`.
 */
export async function updateFollow(deps: { follows: FollowRepo }, request: { id: string; change: FollowChange; now: Date }): Promise<Follow> {
  void deps;
  void request;
  throw new Error('updateFollow: not implemented yet (stub of the follows contract)');
}
