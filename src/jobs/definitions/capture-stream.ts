// Decisions: docs/decisions/0079-recording-progress.md
import { captureStream } from '../../core/capture/capture-stream.js';
import { keepLiveFrame } from '../../core/playback/refresh-live-frame.js';
import { AppError } from '../../core/errors.js';
import { defineJob } from '../job-definition.js';
import type { JobWork } from '../job-work.js';
import { RecordPayload } from '../runtime/payloads.js';
import { failRecord } from './fail-record.js';
import { recordEvents } from './record-events.js';
import { runOnce } from './run-once.js';

type Work = Pick<JobWork, 'deps' | 'settings' | 'running' | 'log'>;

/** Records a live stream to its end; its progress is in PostgreSQL, so a retry (on any worker) resumes. */
export const captureStreamJob = defineJob({
  name: 'capture-stream',
  payload: RecordPayload,
  // retried for as long as the stream may still be live
  policy: { retryLimit: 500, retryDelay: 5, expireInSeconds: 23 * 3600 },
  concurrency: (limits) => limits.maxCaptures,
  // several watchdogs may ask at once: one job per stream per 10 s is enough
  dedup: { key: (payload) => payload.livestreamId, windowSeconds: 10 },
  // a running capture is judged by its lease, not its job
  pending: { kind: 'capture', states: ['created', 'retry'] },
  async handle(work: Work, { livestreamId }) {
    const { workerId, staleAfterSeconds, unreachableSeconds } = work.settings;
    // already recording here: a duplicate request
    await runOnce(work.running.captures, livestreamId, async (signal) => {
      // the recording's recent frame, for pages to show while it goes on (0079)
      const stopFrames = keepLiveFrame(work.deps, livestreamId, workerId, (error) =>
        work.log?.warn({ livestreamId, err: error }, 'the recent frame of a recording could not be made'),
      );
      try {
        await captureStream(work.deps, livestreamId, { workerId, staleAfterSeconds, unreachableSeconds, signal });
      } finally {
        stopFrames();
      }
      if (!signal.aborted) await recordEvents.captureEnded(work, livestreamId);
    });
  },
  async onFailure(work: Work, { livestreamId }, failure) {
    // another worker is recording it: nothing failed (the watchdog and the sweep watch that worker)
    if (failure.error instanceof AppError && failure.error.code === 'capture_not_running') return;
    await failRecord(work, livestreamId, failure, 'The recording failed');
  },
});
