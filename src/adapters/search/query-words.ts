import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import { AppError } from '../../core/errors.js';

/** Queries whose words are remembered (how PostgreSQL splits and normalises a text never changes). */
const MAX_REMEMBERED_QUERIES = 1000;
/**
 * The longest word PostgreSQL keeps, in bytes of UTF-8: its parser drops a longer token from a
 * tsvector with only a NOTICE (MAXSTRLEN, 2,047, in tsearch's ts_type.h), from the documents' words
 * as from a query's.
 */
export const MAX_WORD_BYTES = 2046;
/**
 * How PostgreSQL splits a query: as it splits the documents' title and channel name (migration
 * 0007); and the first token it would drop as too long (`ts_debug` names the tokens the
 * configuration indexes, those with dictionaries), looked for only in a text that long.
 */
export const QUERY_WORDS_SQL = `with n as (select kura_search_norm($1) as q)
  select coalesce((select array_agg(lexeme order by positions[1]) from unnest(to_tsvector('simple', n.q))), '{}') as words,
    case when octet_length(n.q) > ${MAX_WORD_BYTES} then (select token from ts_debug('simple', n.q)
      where dictionaries <> '{}' and octet_length(token) > ${MAX_WORD_BYTES} limit 1) end as too_long
  from n`;

/**
 * The words of a query as PostgreSQL makes them of documents (`to_tsvector('simple',
 * kura_search_norm(q))`: accents off, lower case, its parser's tokens), in order, each once. A
 * query of plain words (ASCII letters, or digits) is split here, as PostgreSQL would split it (a
 * test holds the two to the same answers); any other is asked of PostgreSQL, the last thousand
 * remembered. Throws `invalid_search_q` for a word longer than MAX_WORD_BYTES: PostgreSQL would
 * drop it, and the query would then ask less than it says (nothing at all: everything matches).
 */
export function queryWords(pool: pg.Pool): (q: string) => Promise<string[]> {
  const remembered = new LRUCache<string, { words: string[]; tooLong: string | null }>({ max: MAX_REMEMBERED_QUERIES });
  return async (q) => {
    const plain = plainWords(q);
    if (plain !== null) return plain;
    let split = remembered.get(q);
    if (split === undefined) {
      const { rows } = await pool.query<{ words: string[]; too_long: string | null }>({ name: 'search-query-words', text: QUERY_WORDS_SQL, values: [q] });
      split = { words: rows[0]?.words ?? [], tooLong: rows[0]?.too_long ?? null };
      remembered.set(q, split);
    }
    if (split.tooLong !== null) throw wordTooLong(split.tooLong);
    return split.words;
  };
}

/**
 * The words of a query whose words are each ASCII letters only or digits only, between spaces, and
 * none longer than PostgreSQL keeps; null for any other (letters and digits mixed may be a number
 * to PostgreSQL's parser: "1e5").
 */
export function plainWords(q: string): string[] | null {
  const words = q
    .toLowerCase()
    .split(' ')
    .filter((word) => word !== '');
  if (!words.every((word) => /^(?:[a-z]+|[0-9]+)$/.test(word) && word.length <= MAX_WORD_BYTES)) return null;
  return [...new Set(words)];
}

function wordTooLong(word: string): AppError {
  const start = [...word].slice(0, 12).join('');
  return new AppError(
    'invalid',
    'invalid_search_q',
    `The query's word starting "${start}…" is ${Buffer.byteLength(word)} bytes long in UTF-8; words are searched up to ${MAX_WORD_BYTES} bytes ` +
      `(${Math.floor(MAX_WORD_BYTES / 3)} Chinese, Japanese or Korean characters), as no title or channel name is indexed under a longer one.`,
  );
}
