import type { CaptureRepo, Scheduler } from '../core/ports.js';

/**
 * Every `everySeconds`, finds captures whose worker stopped renewing its lease (crashed,
 * killed, cut off) and asks for the capture again; the next worker resumes from the stored
 * progress. Returns a stop function.
 */
export function startWatchdog(
  deps: { captures: CaptureRepo; scheduler: Scheduler },
  options: { staleAfterSeconds: number; everySeconds: number; onError: (error: Error) => void },
): () => void {
  const timer = setInterval(() => {
    void (async () => {
      for (const livestreamId of await deps.captures.findStale(options.staleAfterSeconds)) {
        await deps.captures.appendLog(livestreamId, ['[kura] the recording worker stopped answering; handing the capture to another worker']);
        await deps.scheduler.capture(livestreamId);
      }
    })().catch(options.onError);
  }, options.everySeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
