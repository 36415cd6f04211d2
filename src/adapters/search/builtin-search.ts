import type pg from 'pg';
import { MAX_TOTAL_HITS, type MatchedWord, type RecordDocument, type SearchEngine, type SearchFilter, type SearchRequest } from '../../core/search.js';
import { ensureSearchKey } from './builtin-index.js';

/** Query words shorter than this are never corrected (too many neighbours to mean anything). */
const MIN_TYPO_LENGTH = 4;
/** Known words a misspelt query word may stand for, most similar first. */
const MAX_CORRECTIONS = 3;

const COLUMNS = { finished: 'finished', status: 'status', channelId: 'channel_id', platform: 'platform' } as const;
const SORT_COLUMNS = { scheduledStart: 'scheduled_start_at', length: 'length_seconds', fileSizeBytes: 'file_size_bytes' } as const;

interface WordRow {
  word: string;
  /** Documents holding the word itself; null when none does. */
  documents: number | null;
  /** The most documents any word beginning with it is in; null when there is none. */
  prefix_documents: number | null;
  /** Known words like it, as "word documents", most similar first (typo candidates). */
  similar: string[] | null;
}

/**
 * Search in PostgreSQL: full text over the accent-free, lower-cased title and channel name
 * (`simple` configuration: no language's stemming), the last word as a prefix, and words no
 * document holds replaced by their nearest known words by trigram similarity (typos).
 */
export function createBuiltinSearch(pool: pg.Pool): SearchEngine {
  let key: Promise<string> | null = null;
  return {
    async search(request) {
      const words = await matchWords(pool, request.q);
      const where: string[] = [];
      const values: unknown[] = [];
      if (words !== null) {
        values.push(words.tsquery);
        where.push(`words @@ $${values.length}::tsquery`);
      }
      if (request.filter !== null) where.push(filterSql(request.filter, values));
      const whereSql = where.length > 0 ? `where ${where.join(' and ')}` : '';
      const limit = Math.max(0, Math.min(request.limit, MAX_TOTAL_HITS - request.offset));
      const page = () => [...values, limit, request.offset];
      const result = (documents: RecordDocument[], total: number) => ({ documents, total, words: words?.matched ?? [] });
      // one word in 1,000 documents or more: the count is known to reach the cap without counting
      const capped = words !== null && words.terms === 1 && request.filter === null && words.atLeast >= MAX_TOTAL_HITS;
      if (!capped) {
        // the matches (up to the cap and one more) are read once: counted, ranked and paged together
        const rank = words === null ? '0' : `ts_rank(words, $1::tsquery)`;
        const order = orderSql(request, words !== null, 'm.');
        const values2 = page();
        const { rows } = await pool.query<{ total: number; document: RecordDocument | null }>(
          `with m as materialized (
             select id, scheduled_start_at, length_seconds, file_size_bytes, ${rank} as rank
             from search_documents ${whereSql} limit ${MAX_TOTAL_HITS + 1}
           ),
           shown as (select m.id, row_number() over (order by ${order}) as n from m order by ${order}
                     limit $${values2.length - 1} offset $${values2.length})
           select t.total, d.document from (select count(*)::integer as total from m) t
           left join (shown join search_documents d using (id)) on true order by shown.n`,
          values2,
        );
        const total = rows[0]?.total ?? 0;
        if (total <= MAX_TOTAL_HITS) return result(rows.flatMap((r) => (r.document ? [r.document] : [])), total);
      }
      // more matches than the cap: newest first (or the sort asked), read in index order
      if (limit === 0) return result([], MAX_TOTAL_HITS);
      const order = orderSql(request, false, '');
      const params = page();
      const { rows } = await pool.query<{ document: RecordDocument }>(
        `select document from search_documents ${whereSql} order by ${order} limit $${params.length - 1} offset $${params.length}`,
        params,
      );
      return result(rows.map((r) => r.document), MAX_TOTAL_HITS);
    },

    searchKey() {
      key ??= ensureSearchKey(pool).catch((error: unknown) => {
        key = null;
        throw error;
      });
      return key;
    },

    async count() {
      const { rows } = await pool.query<{ n: number }>('select count(*)::integer as n from search_documents');
      return rows[0]?.n ?? 0;
    },
  };
}

/**
 * The query's words as a tsquery, each word known, prefix of a known word (the last one), or
 * corrected to the known words nearest to it. Null when the query has no words.
 */
async function matchWords(pool: pg.Pool, q: string): Promise<{ tsquery: string; matched: MatchedWord[]; terms: number; atLeast: number } | null> {
  if (q.trim() === '') return null;
  const { rows } = await pool.query<WordRow>({
    name: 'search-words',
    text: `with t as (
        select lexeme as word, positions[1] as pos from unnest(to_tsvector('simple', kura_search_norm($1)))
      )
      select t.word,
        (select w.documents from search_words w where w.word = t.word and w.documents > 0) as documents,
        (select max(w.documents) from search_words w where w.word >= t.word and w.word < t.word || chr(1114111) and w.documents > 0) as prefix_documents,
        case when length(t.word) >= $2 and not exists (select 1 from search_words w where w.word = t.word and w.documents > 0) then array(
          select w.word || ' ' || w.documents from search_words w where w.word % t.word and w.documents > 0
          order by similarity(w.word, t.word) desc, w.word limit $3
        ) end as similar
      from t order by t.pos`,
    values: [q, MIN_TYPO_LENGTH, MAX_CORRECTIONS],
  });
  if (rows.length === 0) return null;
  const matched: MatchedWord[] = [];
  // documents the first word alone is known to be in: a lower bound of a one-word query's hits
  let atLeast = 0;
  const parts = rows.map((row, i) => {
    const last = i === rows.length - 1;
    if (last && row.prefix_documents !== null) {
      matched.push({ word: row.word, prefix: true });
      atLeast = row.prefix_documents;
      return `${lexeme(row.word)}:*`;
    }
    const similar = (row.similar ?? []).map((entry) => entry.split(' ') as [string, string]);
    if (row.documents !== null || similar.length === 0) {
      matched.push({ word: row.word, prefix: false });
      atLeast = row.documents ?? 0;
      return lexeme(row.word);
    }
    for (const [word] of similar) matched.push({ word, prefix: false });
    atLeast = Math.max(...similar.map(([, documents]) => Number(documents)));
    return `(${similar.map(([word]) => lexeme(word)).join(' | ')})`;
  });
  return { tsquery: parts.join(' & '), matched, terms: rows.length, atLeast };
}

function lexeme(word: string): string {
  return `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

function filterSql(filter: SearchFilter, values: unknown[]): string {
  if (filter.kind === 'term') {
    values.push(filter.value);
    return `${COLUMNS[filter.field]} ${filter.equal ? '=' : '<>'} $${values.length}`;
  }
  if (filter.items.length === 0) return filter.kind === 'and' ? 'true' : 'false';
  return `(${filter.items.map((item) => filterSql(item, values)).join(filter.kind === 'and' ? ' and ' : ' or ')})`;
}

/**
 * Asked sorts first; without one, best match first (title over channel name) when the matches
 * are few enough to rank, else newest first; ties newest first, then by id.
 */
function orderSql(request: SearchRequest, rank: boolean, table: string): string {
  const keys = request.sort.map((s) => `${table}${SORT_COLUMNS[s.field]} ${s.order} nulls last`);
  if (keys.length === 0 && rank) keys.push(`${table}rank desc`);
  return [...keys, `${table}scheduled_start_at desc`, `${table}id desc`].join(', ');
}
