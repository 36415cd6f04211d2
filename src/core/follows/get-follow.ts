import { AppError } from '../errors.js';
import type { Follow, Sighting } from './follow.js';
import { PLAYLIST_SIGHTING } from './decide-candidate.js';
import type { FollowRepo } from './ports.js';

/** How many of a follow's latest decisions its page shows. */
export const RECENT_SIGHTINGS = 50;

/**
 * One follow and what it decided lately (queued, skipped and why): a stream or broadcast a row,
 * not the note an HLS endpoint's follow keeps of where its playlist was. Throws `follow_not_found`.
 */
export async function getFollow(deps: { follows: FollowRepo }, id: string): Promise<{ follow: Follow; recent: Sighting[] }> {
  const follow = await deps.follows.find(id);
  if (follow === null) throw new AppError('not_found', 'follow_not_found', `No follow has the id "${id}".`);
  const recent = await deps.follows.recentSightings(id, RECENT_SIGHTINGS + 1);
  return { follow, recent: recent.filter((sighting) => sighting.streamId !== PLAYLIST_SIGHTING).slice(0, RECENT_SIGHTINGS) };
}
