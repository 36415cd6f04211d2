import { failLivestream } from '../../core/record-actions/fail-livestream.js';
import type { FinalFailure } from '../job-definition.js';
import type { JobWork } from '../job-work.js';
import { recordEvents } from './record-events.js';

/**
 * The record's way out when its job fails for good: `failed`, with why in words (parts are kept);
 * `giving` says what gave up when it was not a PermanentError. Its lease (a finalize's) is given
 * up, so a retry may start at once on any worker.
 */
export async function failRecord(work: Pick<JobWork, 'deps' | 'settings' | 'log'>, id: string, failure: FinalFailure, giving: string): Promise<void> {
  await failLivestream(work.deps, id, failure.permanent ? failure.message : `${giving} after ${failure.attempts} attempts: ${failure.message}`);
  await work.deps.captures.release(id, work.settings.workerId);
  await recordEvents.failed(work, id);
}
