import { LRUCache } from 'lru-cache';
import type pg from 'pg';

/** Queries whose words are remembered (how PostgreSQL splits and normalises a text never changes). */
const MAX_REMEMBERED_QUERIES = 1000;
/** How PostgreSQL splits a query: as it splits the documents' title and channel name (migration 0007). */
export const QUERY_WORDS_SQL = `select coalesce(array_agg(lexeme order by positions[1]), '{}') as words from unnest(to_tsvector('simple', kura_search_norm($1)))`;

/**
 * The words of a query as PostgreSQL makes them of documents (`to_tsvector('simple',
 * kura_search_norm(q))`: accents off, lower case, its parser's tokens), in order, each once. A
 * query of plain words (ASCII letters, or digits) is split here, as PostgreSQL would split it (a
 * test holds the two to the same answers); any other is asked of PostgreSQL, the last thousand
 * remembered.
 */
export function queryWords(pool: pg.Pool): (q: string) => Promise<string[]> {
  const remembered = new LRUCache<string, string[]>({ max: MAX_REMEMBERED_QUERIES });
  return async (q) => {
    const plain = plainWords(q);
    if (plain !== null) return plain;
    const known = remembered.get(q);
    if (known !== undefined) return known;
    const { rows } = await pool.query<{ words: string[] }>({
      name: 'search-query-words',
      text: QUERY_WORDS_SQL,
      values: [q],
    });
    const words = rows[0]?.words ?? [];
    remembered.set(q, words);
    return words;
  };
}

/**
 * The words of a query whose words are each ASCII letters only or digits only, between spaces;
 * null for any other (letters and digits mixed may be a number to PostgreSQL's parser: "1e5").
 */
export function plainWords(q: string): string[] | null {
  const words = q
    .toLowerCase()
    .split(' ')
    .filter((word) => word !== '');
  if (!words.every((word) => /^(?:[a-z]+|[0-9]+)$/.test(word))) return null;
  return [...new Set(words)];
}
