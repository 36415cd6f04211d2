// Decisions: docs/decisions/0138-twitch-eventsub-stream-online.md
import { twitchChannelUrl } from './follow-target.js';
import type { FollowRepo } from './ports.js';

/**
 * Twitch said this channel went live (an EventSub `stream.online`, decision 0138): its unpaused
 * follow is made due now, as a resume makes it — its next check is brought before the one stored,
 * which tells the worker holding it — so its Helix look, inspection and queuing run at once.
 * Returns the follow's id, or null when no unpaused follow is of that channel.
 */
export async function wakeTwitchFollow(deps: { follows: Pick<FollowRepo, 'list' | 'update'> }, request: { login: string; now: Date }): Promise<string | null> {
  const url = twitchChannelUrl(request.login.toLowerCase());
  const follow = (await deps.follows.list()).find((found) => found.url === url && !found.paused);
  if (follow === undefined) return null;
  // before the stored time even when that is past (a worker writes its looks' times later): else no worker is told
  const due = new Date(Math.min(request.now.getTime(), follow.nextCheckAt.getTime() - 1));
  return (await deps.follows.update(follow.id, { nextCheckAt: due })) === null ? null : follow.id;
}
