// Decisions: docs/decisions/0092-leases-and-worker-sessions.md
import type { CaptureLease } from './ports.js';

/**
 * Renews a capture's lease every `everyMs` until the returned function is called; `onLost` runs
 * when another worker has taken the capture over, `onStop` when an admin asked to stop it. A missed
 * beat is tried again at the next one. Beats fall on multiples of `everyMs` of the clock, so the
 * captures of a process beat at the same moments (and the repository renews them in one statement).
 */
export function keepLease(
  captures: CaptureLease,
  livestreamId: string,
  workerId: string,
  everyMs: number,
  on: { onLost?: () => void; onStop?: () => void } = {},
): () => void {
  // the next multiple of `everyMs`, or the one after when it is that close (a timer may fire a hair early)
  const untilNextBeat = () => {
    const wait = everyMs - (Date.now() % everyMs);
    return wait < everyMs / 2 ? wait + everyMs : wait;
  };
  const beat = () => {
    timer = setTimeout(beat, untilNextBeat());
    captures.heartbeat(livestreamId, workerId).then(
      (lease) => {
        if (lease === 'lost') on.onLost?.();
        if (lease === 'stop') on.onStop?.();
      },
      () => undefined,
    );
  };
  let timer = setTimeout(beat, untilNextBeat());
  return () => clearTimeout(timer);
}
