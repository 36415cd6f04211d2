import { captureStream, type CaptureDeps } from '../core/capture-stream.js';
import { finalizeArchive, type FinalizeDeps } from '../core/finalize-archive.js';
import { watchStream, type WatchPolicy } from '../core/watch-stream.js';
import type { JobHandlers } from './catalogue.js';

export type WorkerDeps = CaptureDeps & FinalizeDeps;

export interface WorkerSettings {
  workerId: string;
  watch: WatchPolicy;
  staleAfterSeconds: number;
  /** Brings the search index up to date; unset when search is off. */
  syncSearch?: () => Promise<unknown>;
  /** One scheduled run of archive verification (see jobs/verify-archives.ts). */
  verifyArchives?: () => Promise<unknown>;
}

/** The job handlers, and an abort for the captures running in this process. */
export function createHandlers(deps: WorkerDeps, settings: WorkerSettings): { handlers: JobHandlers; abortCaptures(): Promise<void> } {
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const handlers: JobHandlers = {
    'watch-stream': async ({ livestreamId }) => {
      await watchStream(deps, livestreamId, settings.watch, new Date());
    },
    'capture-stream': async ({ livestreamId }) => {
      if (running.has(livestreamId)) return; // already recording here: a duplicate request
      const controller = new AbortController();
      const done = captureStream(deps, livestreamId, { workerId: settings.workerId, staleAfterSeconds: settings.staleAfterSeconds, signal: controller.signal });
      running.set(livestreamId, { controller, done: done.then(() => undefined, () => undefined) });
      try {
        await done;
      } finally {
        running.delete(livestreamId);
      }
    },
    'finalize-archive': async ({ livestreamId }) => {
      await finalizeArchive(deps, livestreamId, { workerId: settings.workerId, staleAfterSeconds: settings.staleAfterSeconds });
    },
    'index-records': async () => {
      await settings.syncSearch?.();
    },
    'verify-archives': async () => {
      await settings.verifyArchives?.();
    },
  };
  return {
    handlers,
    async abortCaptures() {
      const stopping = [...running];
      for (const [, capture] of stopping) capture.controller.abort(new Error('worker shutting down'));
      // each capture first hands its local chunks to the store (bounded by the recorder's handover time)
      for (const [livestreamId, capture] of stopping) {
        await capture.done;
        await deps.captures.release(livestreamId, settings.workerId);
        await deps.captures.appendLog(livestreamId, [`[kura] worker ${settings.workerId} stopped; the capture continues on the next worker`]);
      }
    },
  };
}
