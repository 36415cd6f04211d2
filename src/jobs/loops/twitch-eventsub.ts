// Decisions: docs/decisions/0138-twitch-eventsub-stream-online.md
import type { ChangeFeed } from '../../shared/change-feed.js';
import type { BackgroundLog } from '../job-work.js';
import { startEvery } from '../runtime/every.js';

/** How a worker subscribes followed Twitch channels to EventSub's `stream.online` (decision 0138). */
export interface EventSubSubscribing {
  /** The logins of every unpaused Twitch follow. */
  followed(): Promise<string[]>;
  /** Asks Twitch for the subscription: `exists` when Twitch has it already (409), `no_channel` when Twitch has no such login; throws what Twitch said. */
  subscribe(login: string): Promise<'created' | 'exists' | 'no_channel'>;
}

/** The first round waits this long after the worker starts, for the api to listen (Twitch checks the callback when asked). */
export const FIRST_ROUND_DELAY_MS = 5_000;

/**
 * The twitch-eventsub loop of the catalogue: each followed Twitch channel is subscribed to
 * `stream.online` once this worker sees its follow (at start, and at each notification of a follow
 * added or changed), and every channel is asked for again on its timer, which makes again a
 * subscription Twitch revoked (or whose verification failed) and retries a failed one. Nothing where
 * EventSub is off. Subscriptions of removed follows are left to Twitch (decision 0138).
 */
export function startTwitchEventSubLoop(
  context: { twitchEventSub?: EventSubSubscribing | null; log: BackgroundLog },
  wake: { feed: ChangeFeed; everySeconds: number },
  firstRoundDelayMs = FIRST_ROUND_DELAY_MS,
): () => Promise<void> {
  const eventSub = context.twitchEventSub;
  if (eventSub === undefined || eventSub === null) return async () => undefined;
  const subscribed = new Set<string>();
  let stopped = false;

  const subscribeEach = async (logins: readonly string[]) => {
    for (const login of logins) {
      if (stopped) return;
      try {
        const outcome = await eventSub.subscribe(login);
        if (outcome === 'no_channel') context.log.warn({ login }, `Twitch has no channel ${login}: its follow is looked at by polling alone`);
        else subscribed.add(login);
        if (outcome === 'created') context.log.info({ login }, `Twitch EventSub: ${login}'s stream.online subscribed`);
      } catch (error) {
        context.log.warn(
          { err: error, login },
          `Twitch EventSub: ${login}'s stream.online could not be subscribed (polling goes on): ${(error as Error).message}`,
        );
      }
    }
  };
  // one round at a time: a notification during a round asks for one more after it
  let round: Promise<void> | null = null;
  let again = false;
  const newOnes = (): Promise<void> => {
    if (round !== null) return (void (again = true), round);
    round = (async () => {
      do {
        again = false;
        const logins = await eventSub.followed().catch(() => []);
        await subscribeEach(logins.filter((login) => !subscribed.has(login)));
      } while (again && !stopped);
    })().finally(() => (round = null));
    return round;
  };
  let stopEvery: (() => Promise<void>) | null = null;
  wake.feed.onChange(() => void (stopped || stopEvery === null || newOnes()));
  // Twitch verifies a subscription at once, at the callback: under `kura serve` the api listens only once this worker is ready
  const first = setTimeout(() => {
    if (stopped) return;
    stopEvery = startEvery(
      async () => {
        await round;
        subscribed.clear(); // every channel asked again: Twitch answers 409 for those it has
        await newOnes();
      },
      { everySeconds: wake.everySeconds, onError: (error) => context.log.warn({ err: error }, `Twitch EventSub: ${error.message}`) },
    );
  }, firstRoundDelayMs);
  first.unref();
  return async () => {
    stopped = true;
    clearTimeout(first);
    await stopEvery?.();
    await round;
  };
}
