import type { ChangeFeed } from '../shared/change-feed.js';
import { LISTEN_CONNECTIONS, LOOPS } from './loop-catalogue.js';
import { createHandlers } from './handlers.js';
import { startLoop, type ChannelFeeds, type Listen, type Loop, type StopLoop } from './runtime/loop.js';
import type { LoopContext, WorkerContext } from './worker-context.js';

/**
 * Starts every loop of the catalogue in this worker, in its order, each woken as it declares: its
 * channel's feed from the LISTEN connections `listen` opens (LISTEN_CONNECTIONS), its timer from
 * the worker's settings. The returned stop stops them in the reverse order (the job runners take
 * no new job first), hands the running captures to the next worker, then closes the connections.
 */
export async function startBackgroundWork(context: WorkerContext, listen: Listen): Promise<() => Promise<void>> {
  const worker = createHandlers(context.deps, context.settings, context);
  const loopContext: LoopContext = { ...context, handlers: worker.handlers, hooks: worker.hooks };
  const loops: Array<Loop<LoopContext>> = Object.values(LOOPS);
  const connections: ChannelFeeds[] = [];
  const stops: StopLoop[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  };
  const closeAll = async () => {
    for (const connection of connections.splice(0)) await connection.close();
  };
  try {
    const byChannel = new Map<string, ChangeFeed>();
    for (const [i, channels] of LISTEN_CONNECTIONS.entries()) {
      const connection = await listen(channels, { holdsSession: i === 0 });
      connections.push(connection);
      for (const channel of channels) byChannel.set(channel, connection.feed(channel));
    }
    const feeds = { feed: (channel: string) => byChannel.get(channel) as ChangeFeed };
    for (const loop of loops) stops.push(await startLoop(loop, loopContext, feeds, context.timing));
  } catch (error) {
    await stopAll();
    await closeAll();
    throw error;
  }
  return async () => {
    await stopAll();
    await worker.abortCaptures();
    await closeAll();
  };
}
