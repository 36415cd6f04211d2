import { applyRetention } from '../../core/retention/apply-retention.js';
import { defineJob } from '../job-definition.js';
import type { BackgroundLog, JobWork, RetentionWork } from '../job-work.js';
import { NoPayload } from '../runtime/payloads.js';

type Work = Pick<JobWork, 'retention' | 'log'>;

/** Removes the archives the retention rules no longer keep (0077), through the takedown path. */
export const applyRetentionJob = defineJob({
  name: 'apply-retention',
  payload: NoPayload,
  // on a clock: a failed run is not retried, the next one does its work (and finishes what it left)
  policy: { retryLimit: 0, expireInSeconds: 3600 },
  concurrency: () => 1,
  dedup: null,
  // hourly, at :41, away from the verification's :23
  schedule: { everySeconds: 3600, atSecond: 41 * 60 },
  async handle(work: Work) {
    if (work.retention !== undefined) await runRetention(work.retention, work.log, new Date());
  },
  // no one record to fail: the next hour's run takes over
  onFailure: async () => undefined,
});

/** One run: a log line per archive removed (or not removed), then a summary when anything was. */
export async function runRetention(retention: RetentionWork, log: BackgroundLog | undefined, now: Date): Promise<void> {
  const removed = await applyRetention(retention.deps, retention.defaults, now, {
    removed: ({ id, title, sizeBytes, reason }) => log?.info({ id, sizeBytes, reason }, `removed: ${id} "${title}", ${sizeBytes} bytes: ${reason}`),
    failed: (id, error) => log?.warn({ id, err: error }, `not removed by retention: ${id}: ${error.message}; the next run tries again`),
  });
  if (removed.length > 0) {
    const bytes = removed.reduce((sum, removal) => sum + removal.sizeBytes, 0);
    log?.info({ removed: removed.length, bytes }, `retention removed ${removed.length} archive(s), ${bytes} bytes freed`);
  }
}
