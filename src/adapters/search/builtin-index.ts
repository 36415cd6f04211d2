// Decisions: docs/decisions/0103-builtin-search-kept-orders.md
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { SearchDocument, SearchIndex } from '../../core/search/search.js';

/** The built-in engine's index: documents in PostgreSQL (table search_documents, migrations 0007 and 0008). */
export function createBuiltinIndex(pool: pg.Pool): SearchIndex {
  return {
    async prepare() {
      await ensureSearchKey(pool);
    },

    async upsert(documents) {
      if (documents.length === 0) return [];
      // one statement: atomic by itself
      await pool.query(
        `insert into search_documents as s (id, document, title, channel_name, channel_id, status, finished, platform,
           scheduled_start_at, length_seconds, file_size_bytes, moment_text)
         select d->>'id', t::json, d->>'title', d->>'channelName', d->>'channelId', d->>'status', (d->>'finished')::boolean,
           d->>'platform', (d->>'scheduledStart')::timestamptz, (d->>'length')::integer, (d->>'fileSizeBytes')::bigint,
           coalesce((select string_agg(m->>'text', ' ') from jsonb_array_elements(coalesce(d->'moments', '[]'::jsonb)) m), '')
         from unnest($1::text[]) t, lateral (select t::jsonb as d) j
         on conflict (id) do update set document = excluded.document, title = excluded.title, moment_text = excluded.moment_text,
           channel_name = excluded.channel_name, channel_id = excluded.channel_id, status = excluded.status,
           finished = excluded.finished, platform = excluded.platform, scheduled_start_at = excluded.scheduled_start_at,
           length_seconds = excluded.length_seconds, file_size_bytes = excluded.file_size_bytes`,
        [documents.map((d: SearchDocument) => JSON.stringify(d))],
      );
      return []; // one statement: all of them or an error
    },

    async remove(ids) {
      if (ids.length > 0) await pool.query('delete from search_documents where id = any($1::text[])', [ids]);
    },

    async clear() {
      await pool.query('truncate search_documents');
    },
  };
}

/** The search-only key of the built-in engine: made once, kept in PostgreSQL so every process agrees. */
export async function ensureSearchKey(pool: pg.Pool): Promise<string> {
  await pool.query('insert into search_settings (search_key) values ($1) on conflict (singleton) do nothing', [randomBytes(32).toString('base64url')]);
  const { rows } = await pool.query<{ search_key: string }>('select search_key from search_settings');
  return (rows[0] as { search_key: string }).search_key;
}

/** `searchKey` of an engine on `pool`: read once, and again only after a read that failed. */
export function searchKeyOf(pool: pg.Pool): () => Promise<string> {
  let key: Promise<string> | null = null;
  return () =>
    (key ??= ensureSearchKey(pool).catch((error: unknown) => {
      key = null;
      throw error;
    }));
}
