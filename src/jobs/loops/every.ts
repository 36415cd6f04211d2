/**
 * Runs `chore` now and then every `everySeconds` until the returned function is called; a failure
 * goes to `onError` and the next run comes as usual. A tick while a run is still going is skipped
 * (that run stands for it), and the stop waits for a run in flight, so what it uses is not closed
 * under it. For chores that are idempotent (each worker runs its own), where a missed run is made
 * up by the next.
 */
export function startEvery(chore: () => Promise<unknown>, options: { everySeconds: number; onError: (error: Error) => void }): () => Promise<void> {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= chore()
      .then(() => undefined, options.onError)
      .finally(() => (running = null));
  };
  run();
  const timer = setInterval(run, options.everySeconds * 1000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
