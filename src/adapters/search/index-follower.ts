// Decisions: docs/decisions/0103-builtin-search-kept-orders.md
import type pg from 'pg';
import type { ChangeFeed } from '../../shared/change-feed.js';
import { changeKindOf } from '../../shared/record-changes.js';
import { inTransaction } from '../db/pool.js';
import type { IndexedDocument } from './indexed-document.js';
import { MemoryIndex } from './memory-index.js';
import { wakeEvery } from '../../shared/wake-ups.js';

/** Half the hour `search_changes` keeps its rows (migration 0008): a process that has not read it for longer loads everything. */
const MAX_CATCH_UP_MS = 30 * 60 * 1000;
/** The change log is read at least this often, whatever the notifications say (a backstop, as KURA_JOB_POLL_SECONDS's default). */
const READ_EVERY_MS = 5 * 60 * 1000;
/** Documents read at a time when loading them all. */
const LOAD_BATCH = 5000;

interface DocumentRow {
  id: string | null;
  start: number;
  length_seconds: number | null;
  file_size_bytes: number | null;
  status: string;
  finished: boolean;
  platform: string;
  channel_id: string;
  title_words: string[];
  channel_words: string[];
  moment_words: string[];
}

type LoadRow = DocumentRow & { start_at: string };
type ChangeRow = DocumentRow & { horizon: string; truncated: boolean | null; changed: string | null };

// a document as the index keeps it; its words as the database made them (tsvector weights A and B)
const COLUMNS = `d.id, (extract(epoch from d.scheduled_start_at) * 1000)::float8 as start, d.length_seconds,
  d.file_size_bytes::float8 as file_size_bytes, d.status, d.finished, d.platform, d.channel_id,
  array(select u.lexeme from unnest(d.words) u where 'A' = any(u.weights) order by u.lexeme) as title_words,
  array(select u.lexeme from unnest(d.words) u where 'B' = any(u.weights) order by u.lexeme) as channel_words,
  array(select u.lexeme from unnest(d.words) u where 'C' = any(u.weights) order by u.lexeme) as moment_words`;
// the oldest transaction still running: every change logged by an older one is visible now
const HORIZON = 'select pg_snapshot_xmin(pg_current_snapshot())::text as horizon';

export interface FollowerHooks {
  /** Hears the ids of each change applied (null: everything was loaded again; `warming` is false by then). */
  onApplied?: (ids: string[] | null) => void;
  /** Hears a load of everything begin (at start, after a truncate): `warming` is true until it is applied. */
  onLoading?: () => void;
  /** Hears the first background refresh that fails, and again only after one has succeeded. */
  onError?: (error: Error) => void;
}

/** The built-in engine's index in this process's memory, following `search_documents`. */
export interface IndexFollower {
  /** The index, with every change committed before the call (and notified) applied. */
  current(): Promise<MemoryIndex>;
  /** Whether the index has not been loaded yet, or is being loaded in full again (after a truncate): `current` waits for that load. */
  warming(): boolean;
  close(): Promise<void>;
}

/**
 * Loads every search document into a MemoryIndex, then applies the documents `search_changes`
 * names whenever the change feed says documents changed (a refresh at a time; another right after
 * if more changes came meanwhile). While the feed is down, every search reads the log first.
 */
export function followIndex(pool: pg.Pool, feed: ChangeFeed | null, hooks: FollowerHooks = {}): IndexFollower {
  const { onApplied = () => undefined, onLoading = () => undefined, onError = () => undefined } = hooks;
  let index = new MemoryIndex();
  let horizon: string | null = null;
  let readAt = 0;
  let stale = true;
  let refreshing: Promise<void> | null = null;
  let closed = false;
  let loading = false;

  const loadAll = async () => {
    const startedAt = Date.now();
    const fresh = new MemoryIndex();
    loading = true;
    onLoading();
    const loaded = await loadDocuments(pool, fresh).finally(() => (loading = false));
    index = fresh;
    horizon = loaded;
    readAt = startedAt;
    onApplied(null);
  };

  const catchUp = async (since: string) => {
    const startedAt = Date.now();
    const { rows } = await changesSince(pool, since);
    if (rows[0]?.truncated === true) return loadAll();
    const changed = rows.filter((row) => row.changed !== null);
    // together: an import's thousands of new documents take their places by one sort
    index.addAll(changed.flatMap((row) => (row.id === null ? [] : [indexed(row)])));
    for (const row of changed) if (row.id === null) index.remove(row.changed as string);
    if (changed.length > 0) onApplied(changed.map((row) => row.changed as string));
    horizon = (rows[0] as { horizon: string }).horizon;
    readAt = startedAt;
  };

  const refresh = (): Promise<void> => {
    stale = true;
    refreshing ??= (async () => {
      try {
        while (stale) {
          stale = false;
          if (horizon === null || Date.now() - readAt > MAX_CATCH_UP_MS) await loadAll();
          else await catchUp(horizon);
        }
      } catch (error) {
        stale = true; // the next search tries again
        throw error;
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  };

  // in the background: a failure is also the next search's to meet (and answer with an error)
  let failing = false;
  const refreshQuietly = () => {
    if (closed) return;
    refresh().then(
      () => (failing = false),
      (error: Error) => {
        if (!failing) onError(error);
        failing = true;
      },
    );
  };
  // only a change to the documents moves the log (a record's own change reaches it once the worker's drain wrote its document)
  feed?.onChange((payload) => ['search', 'anything'].includes(changeKindOf(payload)) && refreshQuietly());
  const stopReading = wakeEvery(READ_EVERY_MS, refreshQuietly);
  if (feed !== null) refreshQuietly(); // an api process: load before the first search asks

  return {
    async current() {
      if (feed === null || !feed.connected) await refresh();
      else if (stale || refreshing !== null) await (refreshing ?? refresh());
      return index;
    },
    warming: () => horizon === null || loading,
    async close() {
      closed = true;
      stopReading();
      await refreshing?.catch(() => undefined);
    },
  };
}

/** Loads every search document into `fresh`; the horizon of the snapshot it read them in. */
function loadDocuments(pool: pg.Pool, fresh: MemoryIndex): Promise<string> {
  // in batches (the rows of 100,000 documents at once would take hundreds of MB), one snapshot
  return inTransaction(pool, async (client) => {
    await client.query('set transaction isolation level repeatable read, read only');
    const { rows } = await client.query<{ horizon: string }>(HORIZON);
    // newest first, as the index places them: its slots then follow that order, and a page
    // newest first turns most matches away at the first comparison
    let after: [string, string] | null = null;
    for (;;) {
      const batch: pg.QueryResult<LoadRow> = await client.query<LoadRow>(
        `select ${COLUMNS}, d.scheduled_start_at::text as start_at from search_documents d
           ${after === null ? '' : 'where (d.scheduled_start_at, d.id) < ($1::timestamptz, $2)'}
           order by d.scheduled_start_at desc, d.id desc limit ${LOAD_BATCH}`,
        after ?? undefined,
      );
      fresh.addAll(batch.rows.map(indexed));
      const last: LoadRow | undefined = batch.rows.at(-1);
      if (last === undefined || batch.rows.length < LOAD_BATCH) return (rows[0] as { horizon: string }).horizon;
      after = [last.start_at, last.id as string];
    }
  });
}

/** The documents `search_changes` names since `since` (one row a document, or one row when none), with the new horizon. */
function changesSince(pool: pg.Pool, since: string): Promise<pg.QueryResult<ChangeRow>> {
  return pool.query<ChangeRow>({
    name: 'search-index-changes',
    text: `with h as (${HORIZON}),
          c as (select distinct document_id from search_changes where xid >= $1::xid8 and document_id is not null)
        select h.horizon, (select bool_or(document_id is null) from search_changes where xid >= $1::xid8) as truncated,
          c.document_id as changed, ${COLUMNS}
        from h left join (c left join search_documents d on d.id = c.document_id) on true`,
    values: [since],
  });
}

function indexed(row: DocumentRow): IndexedDocument {
  return {
    id: row.id as string,
    start: row.start,
    length: row.length_seconds,
    fileSizeBytes: row.file_size_bytes,
    status: row.status,
    finished: row.finished,
    platform: row.platform,
    channelId: row.channel_id,
    titleWords: row.title_words,
    channelWords: row.channel_words,
    momentWords: row.moment_words,
  };
}
