import { captureChat } from '../../core/chat/capture-chat.js';
import { defineJob } from '../job-definition.js';
import type { JobWork } from '../job-work.js';
import { RecordPayload } from '../runtime/payloads.js';
import { runOnce } from './run-once.js';

type Work = Pick<JobWork, 'deps' | 'settings' | 'running'>;

/** How often a chat's arrived messages are stored: a crashed worker loses at most this much of it. */
const CHAT_FLUSH_MS = 1000;

/** Captures a YouTube stream's live chat beside its video; a failed attempt resumes (its messages are stored). */
export const captureChatJob = defineJob({
  name: 'capture-chat',
  payload: RecordPayload,
  // an attempt ends with the stream
  policy: { retryLimit: 30, retryDelay: 10, retryBackoff: true, expireInSeconds: 23 * 3600 },
  // a chat runs beside each capture (a yt-dlp process, mostly waiting)
  concurrency: (limits) => limits.maxCaptures,
  dedup: { key: (payload) => payload.livestreamId, windowSeconds: 10 },
  async handle(work: Work, { livestreamId }) {
    const { workerId, staleAfterSeconds } = work.settings;
    await runOnce(work.running.chats, livestreamId, (signal) =>
      captureChat(work.deps, livestreamId, { workerId, staleAfterSeconds, signal, flushMs: CHAT_FLUSH_MS }),
    );
  },
  // the chat alone gives up: the video capture and the record go on
  onFailure: (work: Work, { livestreamId }, failure) =>
    work.deps.chats.finish(livestreamId, 'failed', `gave up after ${failure.attempts} attempts: ${failure.message}`),
});
