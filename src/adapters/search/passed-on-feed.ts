// Decisions: docs/decisions/0107-connection-budget.md
import type { ChangeFeed } from '../../shared/change-feed.js';

/** A change feed the search thread is told by the api's (threaded-search.ts passes each notification on). */
export function passedOnFeed(connected: boolean): ChangeFeed & { pass(payload: string | undefined, connected: boolean): void } {
  const listeners: Array<(payload?: string) => void> = [];
  return {
    get connected() {
      return connected;
    },
    onChange: (listener) => void listeners.push(listener),
    pass(payload, nowConnected) {
      connected = nowConnected;
      for (const listener of listeners) listener(payload);
    },
  };
}
