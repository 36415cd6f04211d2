import type { RunningWork } from '../job-work.js';

/**
 * Runs `work` for record `id` unless it runs in this process already (then resolves at once: a
 * duplicate request), keeping it in `running` with its abort controller until it ends.
 */
export async function runOnce(running: Map<string, RunningWork>, id: string, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  if (running.has(id)) return;
  const controller = new AbortController();
  const done = work(controller.signal);
  running.set(id, {
    controller,
    done: done.then(
      () => undefined,
      () => undefined,
    ),
  });
  try {
    await done;
  } finally {
    running.delete(id);
  }
}
