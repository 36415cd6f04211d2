// Decisions: docs/decisions/0086-one-wake-up-a-minute.md
import { wakeEvery } from '../../shared/wake-ups.js';

/**
 * Runs `chore` now and then every `everySeconds` (on the process's shared wake-ups, decision 0086)
 * until the returned function is called; a failure goes to `onError` and the next run comes as
 * usual. A tick while a run is still going is skipped (that run stands for it), and the stop waits
 * for a run in flight, so what it uses is not closed under it. For chores that are idempotent (each
 * worker runs its own), where a missed run is made up by the next.
 */
export function startEvery(chore: () => Promise<unknown>, options: { everySeconds: number; onError: (error: Error) => void }): () => Promise<void> {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= chore()
      .then(() => undefined, options.onError)
      .finally(() => (running = null));
  };
  run();
  const cancel = wakeEvery(options.everySeconds * 1000, run);
  return async () => {
    cancel();
    await running;
  };
}
