import type { Follow, FollowRequest } from './follow.js';
import type { ChannelResolver, FollowRepo } from './ports.js';

/**
 * Creates a follow: parses the URL into its kind (`invalid_follow` with the reason for anything
 * else, or for a rule that is not a valid regular expression), resolves a YouTube handle once to
 * its channel id (`invalid_follow` when it cannot be), and stores it with every signal due now.
 * Throws `already_followed` for a source already followed.
 */
export async function addFollow(
  deps: { follows: FollowRepo; resolver: ChannelResolver },
  request: { follow: FollowRequest; createdBy: string; now: Date },
): Promise<Follow> {
  void deps;
  void request;
  throw new Error('addFollow: not implemented yet (stub of the follows contract)');
}
