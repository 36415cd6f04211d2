// Decisions: docs/decisions/0022-final-failure-keeps-what-was-captured.md
import { JOB_NAMES, JOBS, type JobFailureHooks, type JobHandlers } from './catalogue.js';
import type { FinalFailure, JobDefinition } from './job-definition.js';
import type { JobParts, JobWork, WorkerDeps, WorkerSettings } from './job-work.js';

/**
 * Every job's handler and failure hook as the catalogue defines them, on this worker's parts; and
 * an abort for the captures and chats running in this process, which hands them to the next
 * worker (their chunks reach the store, their leases are given up).
 */
export function createHandlers(
  deps: WorkerDeps,
  settings: WorkerSettings,
  parts: JobParts = {},
): { handlers: JobHandlers; hooks: JobFailureHooks; running: JobWork['running']; abortCaptures(): Promise<void> } {
  const work: JobWork = { ...parts, deps, settings, running: { captures: new Map(), chats: new Map() } };
  const definitions = JOB_NAMES.map((name) => [name, JOBS[name] as JobDefinition] as const);
  const handlers = Object.fromEntries(definitions.map(([name, job]) => [name, (payload: unknown, meta: { id: string }) => job.handle(work, payload, meta)]));
  const hooks = Object.fromEntries(
    definitions.map(([name, job]) => [name, (payload: unknown, failure: FinalFailure) => job.onFailure(work, payload, failure)]),
  );
  return {
    handlers: handlers as JobHandlers,
    hooks: hooks as JobFailureHooks,
    running: work.running,
    async abortCaptures() {
      const { captures, chats } = work.running;
      // chats store what arrived and give their leases up (the next worker resumes them with the capture)
      const chatsStopping = [...chats.values()];
      for (const chat of chatsStopping) chat.controller.abort(new Error('worker shutting down'));
      const stopping = [...captures];
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
