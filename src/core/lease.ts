import type { CaptureRepo } from './ports.js';

/**
 * Renews a capture's lease every `everyMs` until the returned function is called; `onLost` runs
 * when another worker has taken the capture over. A missed beat is tried again at the next one.
 */
export function keepLease(captures: CaptureRepo, livestreamId: string, workerId: string, everyMs: number, onLost: () => void = () => undefined): () => void {
  const timer = setInterval(() => {
    captures.heartbeat(livestreamId, workerId).then(
      (held) => {
        if (!held) onLost();
      },
      () => undefined,
    );
  }, everyMs);
  return () => clearInterval(timer);
}
