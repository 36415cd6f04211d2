import type { CaptureLease } from './ports.js';

/**
 * Renews a capture's lease every `everyMs` until the returned function is called; `onLost` runs
 * when another worker has taken the capture over, `onStop` when an admin asked to stop it. A missed
 * beat is tried again at the next one.
 */
export function keepLease(
  captures: CaptureLease,
  livestreamId: string,
  workerId: string,
  everyMs: number,
  on: { onLost?: () => void; onStop?: () => void } = {},
): () => void {
  const timer = setInterval(() => {
    captures.heartbeat(livestreamId, workerId).then(
      (lease) => {
        if (lease === 'lost') on.onLost?.();
        if (lease === 'stop') on.onStop?.();
      },
      () => undefined,
    );
  }, everyMs);
  return () => clearInterval(timer);
}
