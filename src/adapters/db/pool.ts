// Decisions: docs/decisions/0015-limits-count-first.md, docs/decisions/0028-database-outages.md, docs/decisions/0086-one-wake-up-a-minute.md, docs/decisions/0106-what-runs-when-idle.md, docs/decisions/0107-connection-budget.md
import pg from 'pg';
import { translateConnectionLoss } from './connection-loss.js';

// bigint sums and counts arrive as strings; every one Kura reads fits in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * How long a connection past the first stays idle before it is closed: a minute. A pool keeps one
 * (`min`), for the clock's jobs and the loops' backstops of an idle server; those opened for a
 * moment of more queries at once are given back within the minute, so a scaled-out instance's
 * idle processes hold one connection each rather than their busiest moment's (decision 0107).
 */
export const IDLE_CONNECTION_MS = 60_000;

export interface PoolOptions {
  connectionString: string;
  /** Connections this process may hold. */
  max?: number;
  applicationName?: string;
  /** Told when an idle connection breaks; the next query reconnects. */
  onError?: (error: Error) => void;
}

/** A pool with timeouts, so a stuck database shows up as errors instead of hung requests. */
export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    // one connection outlives any quiet time (the clock's jobs, the loops' backstops): each query
    // would otherwise open one (a fork and a password handshake cost PostgreSQL and Kura more than the
    // query); pg-pool arms no idle timer for it, so it wakes nothing
    min: 1,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    statement_timeout: 30_000,
    application_name: options.applicationName ?? 'kura',
  });
  // An idle client losing its connection must not crash the process.
  pool.on('error', (error) => options.onError?.(error));
  // Nor one checked out (a transaction, a migration): pg drops its own listener then, and a lost
  // socket is emitted as 'error' besides failing the query in flight, which is how the caller hears of it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  checkoutTimerOnlyWhenWaiting(pool);
  answerLossAsUnavailable(pool);
  return pool;
}

/**
 * pg-pool arms its checkout timer (connectionTimeoutMillis) even when it hands over an idle
 * connection at once, and Node wakes the process when a timer it cleared would have fired: each
 * query of an idle server woke it again five seconds later (decision 0086). A checkout with an
 * idle connection there for it arms none; one that has to wait keeps the limit.
 */
function checkoutTimerOnlyWhenWaiting(pool: pg.Pool): void {
  const options = (pool as unknown as { options: { connectionTimeoutMillis?: number } }).options;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  pool.connect = ((...args: unknown[]) => {
    if (pool.idleCount <= pool.waitingCount) return connect(...args);
    // read by connect() alone, before it returns (the checkout is handed over on the next tick)
    const limit = options.connectionTimeoutMillis;
    options.connectionTimeoutMillis = 0;
    try {
      return connect(...args);
    } finally {
      options.connectionTimeoutMillis = limit;
    }
  }) as typeof pool.connect;
}

/**
 * A query or checkout that fails because PostgreSQL is gone rejects with `database_unavailable`
 * (503 for the api, "wait and retry" for captures) instead of pg's socket error.
 */
function answerLossAsUnavailable(pool: pg.Pool): void {
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    const result = query(...args);
    return result instanceof Promise ? result.catch(translateConnectionLoss) : result;
  }) as typeof pool.query;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  pool.connect = ((...args: unknown[]) => {
    const result = connect(...args);
    return result instanceof Promise ? result.catch(translateConnectionLoss) : result;
  }) as typeof pool.connect;
}

/** Runs `work` in one transaction on one connection: committed if it resolves, rolled back if it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    return translateConnectionLoss(error);
  } finally {
    client.release();
  }
}

/** Whether the database answers a trivial query. */
export async function isReachable(pool: pg.Pool): Promise<boolean> {
  try {
    await pool.query('select 1');
    return true;
  } catch {
    return false;
  }
}

/** Oldest PostgreSQL Kura supports (`server_version_num`). */
/** Writes every dirty page now (a CHECKPOINT): what a start dirtied, in one go rather than at the cluster's next timed checkpoint. */
export async function checkpoint(pool: pg.Pool): Promise<void> {
  await pool.query('checkpoint');
}

export const MIN_SERVER_VERSION = 150000;

/** Throws when the server is older than PostgreSQL 15, naming the version found. */
export async function assertSupportedServer(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ version: string; num: string }>(
    `select current_setting('server_version') as version, current_setting('server_version_num') as num`,
  );
  const found = rows[0];
  if (found === undefined || Number(found.num) < MIN_SERVER_VERSION) {
    throw new Error(`Kura needs PostgreSQL 15 or newer; DATABASE_URL points at PostgreSQL ${found?.version ?? 'of unknown version'}`);
  }
}

/**
 * Runs `insert` in a transaction only while `count` of the owner's rows is below `cap`: the count
 * and the insert hold a transaction-scoped advisory lock on `lock` (one name per kind of row and
 * owner), so inserts sent in parallel cannot pass the cap. Null when the owner has `cap` already.
 */
export function insertBelowCap<T>(
  pool: pg.Pool,
  cap: { lock: string; count: string; params: unknown[]; limit: number },
  insert: (client: pg.PoolClient) => Promise<T>,
): Promise<T | null> {
  return inTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [cap.lock]);
    const { rows } = await client.query<{ n: number }>(cap.count, cap.params);
    if ((rows[0]?.n ?? 0) >= cap.limit) return null;
    return insert(client);
  });
}
