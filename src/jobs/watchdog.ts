import type { CaptureLease, EncoderLog } from '../core/capture/ports.js';
import type { Scheduler } from '../core/livestream/ports.js';

/**
 * Every `everySeconds`, finds captures whose worker stopped renewing its lease (crashed,
 * killed, cut off) and asks for the capture, or the finalize, again; the next worker resumes
 * from the stored progress. Returns a stop function.
 */
export function startWatchdog(
  deps: { captures: CaptureLease & EncoderLog; scheduler: Scheduler },
  options: { staleAfterSeconds: number; everySeconds: number; onError: (error: Error) => void },
): () => void {
  const timer = setInterval(() => {
    void (async () => {
      for (const { livestreamId, state } of await deps.captures.findStale(options.staleAfterSeconds)) {
        if (state === 'capturing') {
          await deps.captures.appendLog(livestreamId, ['[kura] the recording worker stopped answering; handing the capture to another worker']);
          await deps.scheduler.capture(livestreamId);
        } else {
          await deps.scheduler.finalize(livestreamId); // its finalize died with its worker, or was never queued
        }
      }
    })().catch(options.onError);
  }, options.everySeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
