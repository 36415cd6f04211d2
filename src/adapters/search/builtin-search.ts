// Decisions: docs/decisions/0074-cjk-words-in-search.md, docs/decisions/0094-builtin-engine-as-meilisearch-bounded.md
import type pg from 'pg';
import type { ChangeFeed } from '../../shared/change-feed.js';
import { formatHits } from '../../core/search/hit-format.js';
import { searchWarming, type MatchedWord, type SearchEngine } from '../../core/search/search.js';
import { searchKeyOf } from './builtin-index.js';
import { DocumentCache } from './document-cache.js';
import { followIndex, type IndexFollower } from './index-follower.js';
import { cjkRuns, hasCjk, isCjk, pairsOf, segmentWords } from './cjk-words.js';
import { queryWords } from './query-words.js';
import type { MemoryIndex, QueryTerms } from './memory-index.js';
import type { Term } from './term-matcher.js';

/** Query words shorter than this (in characters) are never corrected (too many neighbours to mean anything). */
const MIN_TYPO_LENGTH = 4;
/** Known words a misspelt query word may stand for, most similar first. */
const MAX_CORRECTIONS = 3;
/** Words of a query looked up as record ids (Meilisearch's default limit of query words). */
const MAX_ID_WORDS = 10;
/** How long a search waits for the index being loaded (at start) before it answers `search_warming`: a small index loads well within it. */
const WARMING_WAIT_MS = 1000;
/** Characters of documents' JSON text kept in memory: ~19,000 documents of 850, 16–32 MB (1 or 2 bytes a character). */
const DOCUMENT_CACHE_CHARACTERS = 16_000_000;

/** What the built-in engine tells as it keeps its index: a background refresh that failed (FollowerHooks.onError), `warming` changing. */
export interface BuiltinSearchHooks {
  onIndexError?: (error: Error) => void;
  onWarming?: (warming: boolean) => void;
}

/** The built-in engine with its index in this process's memory; `close` stops following the documents. */
export interface BuiltinSearch extends SearchEngine {
  close(): Promise<void>;
}

/**
 * Search over an index of the documents' words kept in memory (see index-follower.ts): the query
 * split into words as PostgreSQL splits the documents (query-words.ts), every word matched, the
 * last as a prefix, a word no document holds replaced by its nearest known words (typos); CJK text
 * matched by its grams, whole words ranked first; a word of the query that is a record's id finds
 * that record first. The
 * page's documents are then read from `search_documents`, unless recently shown. `onIndexError`
 * hears when the index fails to come up to date in the background (FollowerHooks.onError).
 * Searches throw `invalid_search_q` for a word too long to search (query-words.ts) and
 * `search_warming` while the index loads (loadedIndex).
 */
export function createBuiltinSearch(pool: pg.Pool, feed: ChangeFeed | null, hooks: BuiltinSearchHooks = {}): BuiltinSearch {
  let follower: IndexFollower | null = null;
  const cache = new DocumentCache(DOCUMENT_CACHE_CHARACTERS);
  const onApplied = (ids: string[] | null) => {
    cache.forget(ids);
    if (ids === null) hooks.onWarming?.(false);
  };
  const follow = () => (follower ??= followIndex(pool, feed, { onApplied, onLoading: () => hooks.onWarming?.(true), onError: hooks.onIndexError }));
  if (feed !== null) follow(); // an api process: load the index before the first search
  const split = queryWords(pool);
  return {
    async search(request) {
      const words = await split(request.q);
      const index = await loadedIndex(follow());
      const { query, matched } = matchWords(index, words);
      const ids = request.q
        .split(/\s+/)
        .filter((word) => word !== '')
        .slice(0, MAX_ID_WORDS);
      const page = index.search({ ...query, ids, filter: request.filter, sort: request.sort, offset: request.offset, limit: request.limit });
      const documents = await readDocuments(pool, cache, page.ids);
      return { documents: request.format ? formatHits(documents, request.format, matched) : documents, total: page.total, words: matched };
    },

    searchKey: searchKeyOf(pool),

    async count() {
      return (await loadedIndex(follow())).size;
    },

    warming: () => follow().warming(),

    async close() {
      await follower?.close();
    },
  };
}

/**
 * The index once up to date; while it is being loaded in full, waits for that at most
 * WARMING_WAIT_MS, then throws `search_warming` (unavailable, Retry-After): loading a million
 * documents takes a minute, and a connection left hanging that long tells a client nothing.
 */
async function loadedIndex(follower: IndexFollower): Promise<MemoryIndex> {
  const current = follower.current();
  if (!follower.warming()) return current;
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<null>((resolve) => (timer = setTimeout(resolve, WARMING_WAIT_MS, null)));
  try {
    const index = await Promise.race([current, gaveUp]);
    if (index !== null) return index;
    current.catch(() => undefined); // its failure is the next search's to meet
    throw searchWarming();
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Each query word as a term: itself; the last, every known word it begins; one no document holds,
 * its nearest known words. A word with CJK letters: each run of them as its grams (cjkTerms), its
 * other words (Latin letters, digits) as words.
 */
export function matchWords(index: MemoryIndex, words: readonly string[]): { query: QueryTerms; matched: MatchedWord[] } {
  const vocabulary = index.vocabulary;
  const terms: Term[] = [];
  const grams: Term[] = [];
  const bonus: Term[] = [];
  const matched: MatchedWord[] = [];
  const add = (word: string, last: boolean) => {
    if (last) {
      const completions = vocabulary.completions(word);
      if (completions.length > 0) {
        matched.push({ word, prefix: true });
        terms.push(completions);
        return;
      }
    }
    const similar = vocabulary.documents(word) > 0 || [...word].length < MIN_TYPO_LENGTH ? [] : vocabulary.similar(word, MAX_CORRECTIONS);
    if (similar.length === 0) {
      matched.push({ word, prefix: false });
      terms.push([word]);
      return;
    }
    for (const correction of similar) matched.push({ word: correction, prefix: false });
    terms.push(similar);
  };
  words.forEach((word, i) => {
    if (!hasCjk(word)) return add(word, i === words.length - 1);
    const text = word.normalize('NFKC').toLowerCase();
    for (const other of segmentWords(text)) if (!hasCjk(other)) add(other, false);
    for (const run of cjkRuns(text)) {
      grams.push(...cjkTerms(index, run));
      matched.push({ word: run, prefix: false });
    }
    for (const whole of segmentWords(text)) if (isCjk(whole) && [...whole].length > 1) bonus.push([whole]);
  });
  return { query: { terms, grams: dedupe(grams), bonus: dedupe(bonus) }, matched };
}

/**
 * A run of CJK letters as gram terms, all of which a document holding the run holds: each pair of
 * letters in a row; a single letter, every gram it begins (a pair, or the last letter of a run).
 */
function cjkTerms(index: MemoryIndex, run: string): Term[] {
  const pairs = pairsOf(run);
  return pairs.length > 0 ? pairs.map((pair) => [pair]) : [index.gramsBeginning(run)];
}

/** Terms of one key each, once; others as they are. */
function dedupe(terms: readonly Term[]): Term[] {
  const seen = new Set<string>();
  return terms.filter((term) => term.length !== 1 || (!seen.has(term[0] as string) && seen.add(term[0] as string)));
}

/** The documents of these ids as the JSON text the index keeps, in the same order; one removed meanwhile is left out. */
async function readDocuments(pool: pg.Pool, cache: DocumentCache, ids: readonly string[]): Promise<string[]> {
  const texts = new Map(
    ids.flatMap((id) => {
      const text = cache.get(id);
      return text === undefined ? [] : [[id, text] as const];
    }),
  );
  const missing = ids.filter((id) => !texts.has(id));
  if (missing.length > 0) {
    const mark = cache.mark();
    const { rows } = await pool.query<{ id: string; document: string }>({
      name: 'search-page-documents',
      text: 'select id, document::text as document from search_documents where id = any($1::text[])',
      values: [missing],
    });
    for (const row of rows) {
      texts.set(row.id, row.document);
      cache.keep(mark, row.id, row.document);
    }
  }
  return ids.flatMap((id) => texts.get(id) ?? []);
}
