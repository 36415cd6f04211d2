import { captureStream, type CaptureDeps } from '../core/capture/capture-stream.js';
import { captureChat, type ChatDeps } from '../core/chat/capture-chat.js';
import { AppError } from '../core/errors.js';
import { failLivestream } from '../core/workflow/fail-livestream.js';
import { finalizeArchive, type FinalizeDeps } from '../core/capture/finalize-archive.js';
import { sweepLifecycle, type Repair, type SweepDeps, type SweepPolicy } from '../core/workflow/sweep-lifecycle.js';
import { watchStream, type WatchPolicy } from '../core/workflow/watch-stream.js';
import type { FinalFailure, JobFailureHooks, JobHandlers } from './catalogue.js';

export type WorkerDeps = CaptureDeps & FinalizeDeps & SweepDeps & ChatDeps;

/** How often a chat's arrived messages are stored: a crashed worker loses at most this much of it. */
const CHAT_FLUSH_MS = 1000;

export interface WorkerSettings {
  workerId: string;
  watch: WatchPolicy;
  staleAfterSeconds: number;
  sweep: SweepPolicy;
  /** Told of each sweep's repairs (the server log). */
  onSwept?: (repairs: Repair[]) => void;
  /** Brings the search index up to date; unset when search is off. */
  syncSearch?: () => Promise<unknown>;
  /** One scheduled run of archive verification (see jobs/verify-archives.ts). */
  verifyArchives?: () => Promise<unknown>;
  /** Sends the due webhook deliveries (and asks for the next drain). */
  deliverWebhooks?: () => Promise<unknown>;
}

/** The job handlers, their final-failure hooks, and an abort for the captures running in this process. */
export function createHandlers(deps: WorkerDeps, settings: WorkerSettings): { handlers: JobHandlers; hooks: JobFailureHooks; abortCaptures(): Promise<void> } {
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const chats = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const handlers: JobHandlers = {
    'watch-stream': async ({ livestreamId }) => {
      await watchStream(deps, livestreamId, settings.watch, new Date());
    },
    'capture-stream': async ({ livestreamId }) => {
      if (running.has(livestreamId)) return; // already recording here: a duplicate request
      const controller = new AbortController();
      const done = captureStream(deps, livestreamId, { workerId: settings.workerId, staleAfterSeconds: settings.staleAfterSeconds, signal: controller.signal });
      running.set(livestreamId, {
        controller,
        done: done.then(
          () => undefined,
          () => undefined,
        ),
      });
      try {
        await done;
      } finally {
        running.delete(livestreamId);
      }
    },
    'capture-chat': async ({ livestreamId }) => {
      if (chats.has(livestreamId)) return;
      const controller = new AbortController();
      const worker = { workerId: settings.workerId, staleAfterSeconds: settings.staleAfterSeconds, signal: controller.signal, flushMs: CHAT_FLUSH_MS };
      const done = captureChat(deps, livestreamId, worker);
      chats.set(livestreamId, { controller, done: done.catch(() => undefined) });
      try {
        await done;
      } finally {
        chats.delete(livestreamId);
      }
    },
    'finalize-archive': async ({ livestreamId }) => {
      await finalizeArchive(deps, livestreamId, { workerId: settings.workerId, staleAfterSeconds: settings.staleAfterSeconds });
    },
    'index-records': async () => {
      await settings.syncSearch?.();
    },
    'sweep-lifecycle': async () => {
      const repairs = await sweepLifecycle(deps, settings.sweep, new Date());
      if (repairs.length > 0) settings.onSwept?.(repairs);
    },
    'verify-archives': async () => {
      await settings.verifyArchives?.();
    },
    'deliver-webhooks': async () => {
      await settings.deliverWebhooks?.();
    },
  };
  return {
    handlers,
    hooks: failureHooks(deps, settings.workerId),
    async abortCaptures() {
      // chats store what arrived and give their leases up (the next worker resumes them with the capture)
      const chatsStopping = [...chats.values()];
      for (const chat of chatsStopping) chat.controller.abort(new Error('worker shutting down'));
      const stopping = [...running];
      for (const [, capture] of stopping) capture.controller.abort(new Error('worker shutting down'));
      // each capture first hands its local chunks to the store (bounded by the recorder's handover time)
      for (const [livestreamId, capture] of stopping) {
        await capture.done;
        await deps.captures.release(livestreamId, settings.workerId);
        await deps.captures.appendLog(livestreamId, [`[kura] worker ${settings.workerId} stopped; the capture continues on the next worker`]);
      }
      await Promise.all(chatsStopping.map((chat) => chat.done));
    },
  };
}

/** The record's way out when its job fails for good: `failed`, with why in words (parts are kept). */
function failureHooks(deps: WorkerDeps, workerId: string): JobFailureHooks {
  const fail = async (id: string, failure: FinalFailure, giving: string) => {
    await failLivestream(deps, id, failure.permanent ? failure.message : `${giving} after ${failure.attempts} attempts: ${failure.message}`);
    await deps.captures.release(id, workerId); // a finalize's lease, so a retry may start at once on any worker
  };
  return {
    'watch-stream': ({ livestreamId }, failure) => fail(livestreamId, failure, 'Kura could not check the source'),
    'capture-stream': async ({ livestreamId }, failure) => {
      // another worker is recording it: nothing failed (the watchdog and the sweep watch that worker)
      if (failure.error instanceof AppError && failure.error.code === 'capture_not_running') return;
      await fail(livestreamId, failure, 'The recording failed');
    },
    // the chat alone gives up: the video capture and the record go on
    'capture-chat': ({ livestreamId }, failure) => deps.chats.finish(livestreamId, 'failed', `gave up after ${failure.attempts} attempts: ${failure.message}`),
    'finalize-archive': ({ livestreamId }, failure) => fail(livestreamId, failure, 'The recording could not be made into a video'),
    // no record to fail: the changes wait in the search outbox, and the next change drains them
    'index-records': async () => undefined,
    // it runs again at the next tick
    'sweep-lifecycle': async () => undefined,
    // no one record to fail: the next hour's run takes over, and the worker log says why this one failed
    'verify-archives': async () => undefined,
    // each delivery keeps its own tries and next time; the next drain (the clock at the latest) sends them
    'deliver-webhooks': async () => undefined,
  };
}
