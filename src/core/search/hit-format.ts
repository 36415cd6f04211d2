// Decisions: docs/decisions/0097-builtin-search-in-a-thread-of-its-own.md, docs/decisions/0131-moments-searched.md
import type { MatchedWord } from './search.js';

/** How a search's hits are shown, as a Meilisearch client asks (attributesToRetrieve, attributesToHighlight, its tags). */
export interface HitFormat {
  /** The attributes each hit keeps; null: all. */
  retrieve: string[] | null;
  /** Whether hits carry `_formatted` (any attribute asked highlighted, as Meilisearch does). */
  formatted: boolean;
  /** The attributes to highlight, each once. */
  highlight: string[];
  tags: { pre: string; post: string };
}

/**
 * The hits as `format` asks, each JSON text: passed on as the index keeps them unless attributes
 * are picked or highlighted (most searches), so that most are not parsed and serialised again.
 * The built-in engine does this where it searches (its own thread), not where the answer is sent.
 */
export function formatHits(documents: string[], format: HitFormat, words: readonly MatchedWord[]): string[] {
  if (format.retrieve === null && !format.formatted) return documents;
  return documents.map((text) => JSON.stringify(formatHit(format, JSON.parse(text) as Record<string, unknown>, words)));
}

function formatHit(format: HitFormat, document: Record<string, unknown>, words: readonly MatchedWord[]): Record<string, unknown> {
  const hit = pick(document, format.retrieve);
  if (!format.formatted) return hit;
  const formatted: Record<string, unknown> = { ...hit };
  for (const name of format.highlight) {
    const value = document[name];
    if (typeof value === 'string') formatted[name] = highlight(value, words, format.tags);
    // a record's moments: each one's text, so the ones the words were found in (and their times) show
    if (Array.isArray(value)) formatted[name] = value.map((item: unknown) => highlightText(item, words, format.tags));
  }
  return { ...hit, _formatted: formatted };
}

/** An object's `text` highlighted (a moment's); anything else as it is. */
function highlightText(item: unknown, words: readonly MatchedWord[], tags: HitFormat['tags']): unknown {
  if (typeof item !== 'object' || item === null || typeof (item as { text?: unknown }).text !== 'string') return item;
  return { ...item, text: highlight((item as { text: string }).text, words, tags) };
}

function pick(document: Record<string, unknown>, attributes: string[] | null): Record<string, unknown> {
  if (attributes === null) return { ...document };
  const hit: Record<string, unknown> = {};
  for (const name of attributes) if (name in document) hit[name] = document[name];
  return hit;
}

/** Folds text as the index does (accents off, lower case), to compare words. */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Wraps each word of `text` that a matched word is (or, for the last query word, begins). */
export function highlight(text: string, words: readonly MatchedWord[], tags: { pre: string; post: string }): string {
  if (words.length === 0) return text;
  return text.replace(/[\p{L}\p{N}]+/gu, (word) => {
    const folded = fold(word);
    const hit = words.find((m) => (m.prefix ? folded.startsWith(m.word) : folded === m.word));
    if (hit === undefined) return word;
    // a prefix highlights only the part typed, as Meilisearch does
    const length = hit.prefix ? prefixLength(word, hit.word.length) : word.length;
    return `${tags.pre}${word.slice(0, length)}${tags.post}${word.slice(length)}`;
  });
}

function prefixLength(word: string, foldedLength: number): number {
  for (let i = 1; i <= word.length; i++) if (fold(word.slice(0, i)).length >= foldedLength) return i;
  return word.length;
}
