// Decisions: docs/decisions/0107-connection-budget.md
import { LOOP_CHANNELS, LOOPS } from './loop-catalogue.js';
import { createHandlers } from './handlers.js';
import { startLoop, type Listen, type Loop, type StopLoop } from './runtime/loop.js';
import type { LoopContext, WorkerContext } from './worker-context.js';

/**
 * Starts every loop of the catalogue in this worker, in its order, each woken as it declares: its
 * channel's feed from the one LISTEN connection `listen` opens (every channel of LOOP_CHANNELS),
 * its timer from the worker's settings. The returned stop stops them in the reverse order (the job
 * runners take no new job first), hands the running captures to the next worker, then closes the
 * connection.
 */
export async function startBackgroundWork(context: WorkerContext, listen: Listen): Promise<() => Promise<void>> {
  const worker = createHandlers(context.deps, context.settings, context);
  context.activity?.measure('capturesActive', () => worker.running.captures.size);
  const loopContext: LoopContext = { ...context, handlers: worker.handlers, hooks: worker.hooks };
  const loops: Array<Loop<LoopContext>> = Object.values(LOOPS);
  const connection = await listen(LOOP_CHANNELS);
  const stops: StopLoop[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  try {
    for (const loop of loops) stops.push(await startLoop(loop, loopContext, connection, context.timing));
  } catch (error) {
    await stopAll();
    await connection.close();
    throw error;
  }
  return async () => {
    await stopAll();
    await worker.abortCaptures();
    await connection.close();
  };
}
