import { defineJob } from '../job-definition.js';
import type { JobWork } from '../job-work.js';
import { NoPayload } from '../runtime/payloads.js';

type Work = Pick<JobWork, 'search'>;

/**
 * The durable path of search sync: asked for when a drain of the search outbox failed, retried
 * while the engine is down (the changes wait in the outbox). Does nothing when search is off.
 */
export const indexRecordsJob = defineJob({
  name: 'index-records',
  payload: NoPayload,
  policy: { retryLimit: 1000, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600 },
  concurrency: () => 1,
  dedup: { key: () => 'search', windowSeconds: 5 },
  async handle(work: Work) {
    await work.search?.();
  },
  // no record to fail: the changes wait in the search outbox, and the next change drains them
  onFailure: async () => undefined,
});
