/** Something started that stops: a role, a thread, a process's parts. */
export interface Running {
  stop(): Promise<void>;
}

/**
 * What a start collects as it goes: each part's stop, run in reverse order (the last started
 * stops first). `startOrStop` runs the rest of a start: if it throws, what was started is
 * stopped before the error goes on.
 */
export function stopsInReverse(first: () => Promise<void> | void) {
  const stops: Array<() => Promise<void> | void> = [first];
  const stop = async () => {
    for (const one of stops.splice(0).reverse()) await one();
  };
  return {
    add(one: () => Promise<void> | void): void {
      stops.push(one);
    },
    stop,
    async startOrStop(start: () => Promise<void>): Promise<Running> {
      try {
        await start();
      } catch (error) {
        await stop();
        throw error;
      }
      return { stop };
    },
  };
}
