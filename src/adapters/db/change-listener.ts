import pg from 'pg';
import type { ChangeFeed } from '../../core/livestream/ports.js';

const CHANNEL = 'kura_livestreams_changed';
const RECONNECT_DELAY_MS = 1_000;

export interface ClosableChangeFeed extends ChangeFeed {
  close(): Promise<void>;
}

/**
 * Follows record changes committed by any process, through PostgreSQL LISTEN/NOTIFY
 * (the triggers of migration 0001 notify; `channel` another, such as 0015's webhook events), with
 * each notification's payload. Reconnects by itself after a lost connection.
 */
export async function listenForChanges(connectionString: string, log: (message: string) => void, channel = CHANNEL): Promise<ClosableChangeFeed> {
  const listeners: Array<(payload?: string) => void> = [];
  let client: pg.Client | null = null;
  let connected = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const emit = (payload?: string) => listeners.forEach((listener) => listener(payload));

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString, application_name: 'kura-change-feed' });
    next.on('notification', (message) => emit(message.payload));
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('connection ended')));
    await next.connect();
    await next.query(`listen ${channel}`);
    client = next;
    connected = true;
    emit(); // changes may have happened while disconnected
  };

  const lost = (which: pg.Client, error: Error) => {
    if (client !== which || closed) return;
    connected = false;
    client = null;
    emit();
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
    get connected() {
      return connected;
    },
    onChange(listener) {
      listeners.push(listener);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      connected = false;
      await (client as pg.Client | null)?.end().catch(() => undefined);
    },
  };
}
