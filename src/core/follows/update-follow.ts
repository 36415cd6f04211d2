import { AppError } from '../errors.js';
import type { Follow, FollowChange } from './follow.js';
import { checkRules } from './follow-rules.js';
import type { FollowRepo } from './ports.js';
import { givenName } from '../records/record-names.js';
import { changeRules } from '../retention/retention-rules.js';

const notFound = (id: string) => new AppError('not_found', 'follow_not_found', `No follow has the id "${id}".`);

/**
 * Changes a follow's rules, retention, names or pause. Rules are checked as at creation (`invalid_follow`, `invalid_retention`);
 * resuming a paused follow makes it due now. Throws `follow_not_found`.
 */
export async function updateFollow(deps: { follows: FollowRepo }, request: { id: string; change: FollowChange; now: Date }): Promise<Follow> {
  const { id, change, now } = request;
  const follow = await deps.follows.find(id);
  if (follow === null) throw notFound(id);
  const rules = checkRules({
    titleInclude: change.titleInclude === undefined ? follow.rules.titleInclude : change.titleInclude,
    titleExclude: change.titleExclude === undefined ? follow.rules.titleExclude : change.titleExclude,
    membersOnly: change.membersOnly ?? follow.rules.membersOnly,
    quality: change.quality === undefined ? follow.rules.quality : change.quality,
  });
  // names as a person gives them are kept as givenName makes them
  const channelName = change.channel === undefined ? undefined : givenName(change.channel);
  if (channelName === '') throw new AppError('invalid', 'invalid_follow', 'channel must not be empty.');
  const title = change.title === undefined || change.title === null ? change.title : givenName(change.title) || null;
  const resumed = follow.paused && change.paused === false;
  const updated = await deps.follows.update(id, {
    rules,
    ...(channelName !== undefined ? { channelName } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(change.paused !== undefined ? { paused: change.paused } : {}),
    ...(change.retention !== undefined ? { retention: changeRules(follow.retention, change.retention) } : {}),
    ...(resumed ? { nextCheckAt: now } : {}),
  });
  if (updated === null) throw notFound(id);
  return updated;
}
