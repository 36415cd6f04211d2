// Decisions: docs/decisions/0047-search-outbox.md
import type pg from 'pg';
import type { SearchOutbox } from '../../core/search/search.js';
import { inTransaction } from './pool.js';

/** Any 64-bit constant unique to Kura's search drain: one drainer at a time, across processes. */
const DRAIN_LOCK_KEY = 4_715_207_302;

/** The search outbox of migration 0007, filled by triggers in the writers' own transactions. */
export function createSearchOutbox(pool: pg.Pool): SearchOutbox {
  // serialised, so a later change is never overwritten in the index by an earlier read
  const locked = <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
    inTransaction(pool, async (client) => {
      await client.query('select pg_advisory_xact_lock($1)', [DRAIN_LOCK_KEY]);
      return work(client);
    });
  return {
    drain(limit, apply) {
      return locked(async (client) => {
        // the oldest changes, with every later change of the same records: the records are read
        // after this, so those later changes are applied too (an import queues each record twice:
        // its row, then its submitters)
        const { rows } = await client.query<{ id: string; livestream_id: string }>(
          `select id, livestream_id from search_outbox
           where livestream_id in (select livestream_id from search_outbox order by id limit $1)`,
          [limit],
        );
        if (rows.length === 0) return 0;
        await apply([...new Set(rows.map((r) => r.livestream_id))]);
        // by id: a change committed meanwhile stays queued
        await client.query('delete from search_outbox where id = any($1::bigint[])', [rows.map((r) => r.id)]);
        return rows.length;
      });
    },

    queueAll(beforeQueue) {
      return locked(async (client) => {
        await client.query('delete from search_outbox');
        const { rowCount } = await client.query('insert into search_outbox (livestream_id) select id from livestreams order by id');
        await beforeQueue(); // last: when it fails, nothing was changed
        return rowCount ?? 0;
      });
    },
  };
}
