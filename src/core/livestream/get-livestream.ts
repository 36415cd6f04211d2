import { AppError } from '../errors.js';
import type { Livestream } from './livestream.js';
import type { LivestreamRepo } from './ports.js';

/** One record by id. Throws `livestream_not_found`. */
export async function getLivestream(deps: { livestreams: LivestreamRepo }, id: string): Promise<Livestream> {
  const record = await deps.livestreams.findById(id);
  if (record === null) throw new AppError('not_found', 'livestream_not_found', `No livestream has the id "${id}".`);
  return record;
}
