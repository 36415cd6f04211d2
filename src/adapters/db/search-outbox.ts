// Decisions: docs/decisions/0047-search-outbox.md
import type pg from 'pg';
import type { SearchOutbox } from '../../core/search/search.js';
import { inTransaction } from './pool.js';

/** Any 64-bit constant unique to Kura's search drain: one drainer at a time, across processes. */
const DRAIN_LOCK_KEY = 4_715_207_302;
/** How long a document the engine refused waits before it is indexed again (unless its record changes, or a reindex). */
export const REJECTED_RETRY_SECONDS = 3600;

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
        // refused documents whose wait is over are changes again
        await client.query(
          `with due as (delete from search_rejections where retry_at <= now() returning livestream_id)
           insert into search_outbox (livestream_id) select livestream_id from due order by livestream_id`,
        );
        // the oldest changes, with every later change of the same records: the records are read
        // after this, so those later changes are applied too (an import queues each record twice:
        // its row, then its submitters)
        const { rows } = await client.query<{ id: string; livestream_id: string }>(
          `select id, livestream_id from search_outbox
           where livestream_id in (select livestream_id from search_outbox order by id limit $1)`,
          [limit],
        );
        if (rows.length === 0) return 0;
        const ids = [...new Set(rows.map((r) => r.livestream_id))];
        const rejected = await apply(ids);
        // by id: a change committed meanwhile stays queued; what was refused waits, what was applied is no longer refused
        await client.query(
          `with taken as (delete from search_outbox where id = any($1::bigint[])),
           applied as (delete from search_rejections where livestream_id = any($2::text[]) and livestream_id <> all($3::text[]))
           insert into search_rejections as r (livestream_id, reason, retry_at)
           select id, reason, now() + make_interval(secs => $5) from unnest($3::text[], $4::text[]) as x(id, reason)
           on conflict (livestream_id) do update set reason = excluded.reason, rejected_at = now(), retry_at = excluded.retry_at`,
          [rows.map((r) => r.id), ids, rejected.map((r) => r.id), rejected.map((r) => r.reason), REJECTED_RETRY_SECONDS],
        );
        return rows.length;
      });
    },

    queueAll(beforeQueue) {
      return locked(async (client) => {
        await client.query('delete from search_outbox');
        await client.query('delete from search_rejections'); // every record is queued anew
        const { rowCount } = await client.query('insert into search_outbox (livestream_id) select id from livestreams order by id');
        await beforeQueue(); // last: when it fails, nothing was changed
        return rowCount ?? 0;
      });
    },
  };
}
