import { finalizeArchive } from '../../core/capture/finalize-archive.js';
import { completeTakedown } from '../../core/record-actions/complete-takedown.js';
import { defineJob } from '../job-definition.js';
import type { JobWork } from '../job-work.js';
import { RecordPayload } from '../runtime/payloads.js';
import { failRecord } from './fail-record.js';
import { recordEvents } from './record-events.js';

type Work = Pick<JobWork, 'deps' | 'settings' | 'log'>;

/**
 * Makes a capture's parts into the archived video (remux only), with its thumbnail, log and chat;
 * a record with a takedown pending is removed instead (and one asked while it was finalized, after).
 */
export const finalizeArchiveJob = defineJob({
  name: 'finalize-archive',
  payload: RecordPayload,
  policy: { retryLimit: 20, retryDelay: 30, retryBackoff: true, expireInSeconds: 6 * 3600 },
  concurrency: () => 1,
  dedup: { key: (payload) => payload.livestreamId, windowSeconds: 10 },
  // a running finalize is judged by its lease, not its job
  pending: { kind: 'finalize', states: ['created', 'retry'] },
  async handle(work: Work, { livestreamId }) {
    const lease = { workerId: work.settings.workerId, staleAfterSeconds: work.settings.staleAfterSeconds };
    const takenDown = async () => {
      const outcome = await completeTakedown(work.deps, livestreamId, lease);
      if (outcome === 'done') work.log?.info({ id: livestreamId }, `taken down: ${livestreamId} (its capture ended)`);
      return outcome !== 'none';
    };
    if (await takenDown()) return;
    await finalizeArchive(work.deps, livestreamId, lease);
    if (!(await takenDown())) await recordEvents.archived(work, livestreamId);
  },
  onFailure: (work: Work, { livestreamId }, failure) => failRecord(work, livestreamId, failure, 'The recording could not be made into a video'),
});
