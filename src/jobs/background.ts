import type { ChangeFeed } from '../core/livestream/ports.js';
import { LOOPS } from './catalogue.js';
import { createHandlers } from './handlers.js';
import { startLoop, type Loop, type StopLoop } from './loop.js';
import type { LoopContext, WorkerContext } from './worker-context.js';

/**
 * Starts every loop of the catalogue in this worker, in its order, each woken as it declares: its
 * channel's feed from `feeds` (one LISTEN connection for them all: LOOP_CHANNELS), its timer from
 * the worker's settings. The returned stop stops them in the reverse order (the job runners take
 * no new job first), then hands the running captures to the next worker.
 */
export async function startBackgroundWork(context: WorkerContext, feeds: { feed(channel: string): ChangeFeed }): Promise<() => Promise<void>> {
  const worker = createHandlers(context.deps, context.settings, context);
  const loopContext: LoopContext = { ...context, handlers: worker.handlers, hooks: worker.hooks };
  const stops: StopLoop[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  const loops: Array<Loop<LoopContext>> = Object.values(LOOPS);
  try {
    for (const loop of loops) stops.push(await startLoop(loop, loopContext, feeds, context.timing));
  } catch (error) {
    await stopAll();
    throw error;
  }
  return async () => {
    await stopAll();
    await worker.abortCaptures();
  };
}
