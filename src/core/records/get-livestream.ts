import { AppError } from '../errors.js';
import type { Livestream } from './livestream.js';
import type { LivestreamRepo } from './ports.js';

/**
 * One record by id, as the API serves it. Throws `livestream_not_found`, also for a record being
 * taken down (a takedown waiting for its capture to end): from the takedown's answer on, nothing
 * of it is served, not even to admins. Background work reads records with `findById`.
 */
export async function getLivestream(deps: { livestreams: LivestreamRepo }, id: string): Promise<Livestream> {
  const record = await deps.livestreams.findById(id);
  if (record === null) throw new AppError('not_found', 'livestream_not_found', `No livestream has the id "${id}".`);
  if (record.takedown !== null) throw new AppError('not_found', 'livestream_not_found', `The livestream "${id}" is being taken down.`);
  return record;
}
