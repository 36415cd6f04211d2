// Decisions: docs/decisions/0117-read-cache-with-a-front-door.md
import pg from 'pg';
import type { ChangeFeed } from '../../shared/change-feed.js';

const CHANNEL = 'kura_livestreams_changed';
const RECONNECT_DELAY_MS = 1_000;

export interface ClosableChangeFeed extends ChangeFeed {
  close(): Promise<void>;
}

/** Several channels on one connection: a feed for each. */
export interface ChannelFeeds {
  feed(channel: string): ChangeFeed;
  close(): Promise<void>;
}

/**
 * Follows record changes committed by any process, through PostgreSQL LISTEN/NOTIFY
 * (the triggers of migration 0001 notify; `channel` another, such as 0015's webhook events), with
 * each notification's payload. Reconnects by itself after a lost connection.
 */
export async function listenForChanges(connectionString: string, log: (message: string) => void, channel = CHANNEL): Promise<ClosableChangeFeed> {
  const feeds = await listenForChannels(connectionString, log, [channel]);
  const feed = feeds.feed(channel);
  return {
    get connected() {
      return feed.connected;
    },
    onChange: (listener) => feed.onChange(listener),
    close: () => feeds.close(),
  };
}

/**
 * LISTENs to `channels` on one connection; each feed hears its channel's notifications (with
 * their payload), and every feed hears (without one) that the connection was lost or came back.
 * Reconnects by itself after a lost connection (running `onConnect` again).
 */
export async function listenForChannels(
  connectionString: string,
  log: (message: string) => void,
  channels: readonly string[],
  /** Run on each (re)connection before it listens: to note its session (worker-session.ts). */
  onConnect?: (client: pg.Client) => Promise<void>,
): Promise<ChannelFeeds> {
  const listeners = new Map<string, Array<(payload?: string) => void>>(channels.map((c) => [c, []]));
  let client: pg.Client | null = null;
  let connected = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const emit = (channel: string, payload?: string) => listeners.get(channel)?.forEach((listener) => listener(payload));
  // changes may have happened while disconnected
  const emitAll = () => channels.forEach((channel) => emit(channel));

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString, application_name: 'kura-change-feed' });
    next.on('notification', (message) => emit(message.channel, message.payload));
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('connection ended')));
    await next.connect();
    await onConnect?.(next);
    for (const channel of channels) await next.query(`listen ${channel}`);
    client = next;
    connected = true;
    emitAll();
  };

  const lost = (which: pg.Client, error: Error) => {
    if (client !== which || closed) return;
    connected = false;
    client = null;
    emitAll();
    log(`change feed lost (${error.message}); reconnecting`);
    which.end().catch(() => undefined);
    scheduleReconnect();
  };

  const scheduleReconnect = () => {
    retry = setTimeout(() => {
      connect().catch((error: Error) => {
        log(`change feed reconnect failed (${error.message})`);
        if (!closed) scheduleReconnect();
      });
    }, RECONNECT_DELAY_MS);
    retry.unref();
  };

  await connect();
  return {
    feed(channel) {
      const own = listeners.get(channel);
      if (own === undefined) throw new Error(`not listening to ${channel}`);
      return {
        get connected() {
          return connected;
        },
        onChange(listener) {
          own.push(listener);
        },
      };
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      connected = false;
      await (client as pg.Client | null)?.end().catch(() => undefined);
    },
  };
}
