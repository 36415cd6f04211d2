import { watchStream } from '../../core/record-actions/watch-stream.js';
import { defineJob } from '../job-definition.js';
import type { JobWork } from '../job-work.js';
import { RecordPayload } from '../runtime/payloads.js';
import { failRecord } from './fail-record.js';
import { recordEvents } from './record-events.js';

type Work = Pick<JobWork, 'deps' | 'settings' | 'log'>;

/** A look at a record's source: live now (capture it), later (look again then), or gone. */
export const watchStreamJob = defineJob({
  name: 'watch-stream',
  payload: RecordPayload,
  policy: { retryLimit: 20, retryDelay: 15, retryBackoff: true, expireInSeconds: 300 },
  concurrency: () => 2,
  // at most one waiting (created) look per record; one running or retrying does not count, so a
  // look can always queue the next; a second ask brings the waiting one forward (a moved-up start, an admin's retry)
  dedup: { key: (payload) => payload.livestreamId, oneWaiting: true },
  pending: { kind: 'watch', states: ['created', 'retry', 'active'] },
  async handle(work: Work, { livestreamId }) {
    const outcome = await watchStream(work.deps, livestreamId, work.settings.watch, new Date());
    if (outcome === 'capturing') await recordEvents.live(work, livestreamId);
    if (outcome === 'failed') await recordEvents.failed(work, livestreamId);
  },
  onFailure: (work: Work, { livestreamId }, failure) => failRecord(work, livestreamId, failure, 'Kura could not check the source'),
});
