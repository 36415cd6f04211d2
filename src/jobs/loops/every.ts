/**
 * Runs `chore` now and then every `everySeconds` until the returned function is called; a failure
 * goes to `onError` and the next run comes as usual. For chores that are idempotent and cheap (each
 * worker runs its own), where a missed run is made up by the next.
 */
export function startEvery(chore: () => Promise<unknown>, options: { everySeconds: number; onError: (error: Error) => void }): () => void {
  const run = () => void chore().catch(options.onError);
  run();
  const timer = setInterval(run, options.everySeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
