// Decisions: docs/decisions/0049-hand-written-index-library-lru.md
import { LRUCache } from 'lru-cache';
import { similarity, trigrams } from './trigrams.js';

/** pg_trgm's default `similarity_threshold`: less similar words are not typo candidates. */
const SIMILARITY_THRESHOLD = 0.3;
/** Misspelt words whose corrections are kept (each costs a pass over the words sharing its trigrams). */
const MAX_CORRECTIONS_KEPT = 10_000;

/**
 * The words documents hold, each with how many documents hold it: in sorted order (prefixes) and
 * by trigram (typos). A word leaves when its last document does.
 */
export class Vocabulary {
  private readonly counts = new Map<string, number>();
  /** Every word, in code unit order, once the pending changes are merged in (`settle`). */
  private sorted: string[] = [];
  private readonly pendingAdd = new Set<string>();
  private readonly pendingRemove = new Set<string>();
  private readonly byTrigram = new Map<string, Set<string>>();
  private readonly trigramsOf = new Map<string, number>();
  /** Answers of `similar`, kept until a word comes or goes. */
  private readonly corrections = new LRUCache<string, string[]>({ max: MAX_CORRECTIONS_KEPT });

  /** `typos: false` keeps no trigrams (`similar` finds nothing): for words matched only by prefix, as CJK grams are. */
  constructor(private readonly typos = true) {}

  /** Documents holding `word`; 0 when none does. */
  documents(word: string): number {
    return this.counts.get(word) ?? 0;
  }

  get size(): number {
    return this.counts.size;
  }

  add(word: string): void {
    const count = this.counts.get(word);
    this.counts.set(word, (count ?? 0) + 1);
    if (count !== undefined) return;
    this.corrections.clear();
    if (!this.pendingRemove.delete(word)) this.pendingAdd.add(word);
    if (!this.typos) return;
    const grams = trigrams(word);
    this.trigramsOf.set(word, grams.size);
    for (const gram of grams) {
      let words = this.byTrigram.get(gram);
      if (words === undefined) this.byTrigram.set(gram, (words = new Set()));
      words.add(word);
    }
  }

  remove(word: string): void {
    const count = this.counts.get(word);
    if (count === undefined) return;
    if (count > 1) {
      this.counts.set(word, count - 1);
      return;
    }
    this.counts.delete(word);
    this.corrections.clear();
    if (!this.pendingAdd.delete(word)) this.pendingRemove.add(word);
    if (!this.typos) return;
    this.trigramsOf.delete(word);
    for (const gram of trigrams(word)) {
      const words = this.byTrigram.get(gram);
      words?.delete(word);
      if (words?.size === 0) this.byTrigram.delete(gram);
    }
  }

  /** Known words beginning with `prefix` (itself included), in order. */
  completions(prefix: string): string[] {
    this.settle();
    const found: string[] = [];
    for (let i = this.lowerBound(prefix); i < this.sorted.length; i++) {
      const word = this.sorted[i] as string;
      if (!word.startsWith(prefix)) break;
      found.push(word);
    }
    return found;
  }

  /** Up to `max` known words with a trigram similarity to `word` of 0.3 or more, most similar first (ties in word order). */
  similar(word: string, max: number): string[] {
    const key = `${max} ${word}`;
    let found = this.corrections.get(key);
    if (found === undefined) {
      found = this.mostSimilar(word, max);
      this.corrections.set(key, found);
    }
    return found;
  }

  private mostSimilar(word: string, max: number): string[] {
    const grams = trigrams(word);
    const shared = new Map<string, number>();
    for (const gram of grams) {
      for (const known of this.byTrigram.get(gram) ?? []) shared.set(known, (shared.get(known) ?? 0) + 1);
    }
    const scored: Array<{ word: string; score: number }> = [];
    for (const [known, n] of shared) {
      const score = similarity(n, grams.size, this.trigramsOf.get(known) ?? 0);
      if (score >= SIMILARITY_THRESHOLD) scored.push({ word: known, score });
    }
    scored.sort((a, b) => b.score - a.score || byCodeUnit(a.word, b.word));
    return scored.slice(0, max).map((s) => s.word);
  }

  /** Merges words added or gone since the last look into the sorted list (one pass, not one per word). */
  private settle(): void {
    if (this.pendingAdd.size === 0 && this.pendingRemove.size === 0) return;
    const kept = this.pendingRemove.size === 0 ? this.sorted : this.sorted.filter((w) => !this.pendingRemove.has(w));
    const added = [...this.pendingAdd].sort(byCodeUnit);
    const merged: string[] = [];
    let i = 0;
    let j = 0;
    while (i < kept.length || j < added.length) {
      if (j === added.length || (i < kept.length && (kept[i] as string) < (added[j] as string))) merged.push(kept[i++] as string);
      else merged.push(added[j++] as string);
    }
    this.sorted = merged;
    this.pendingAdd.clear();
    this.pendingRemove.clear();
  }

  private lowerBound(word: string): number {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.sorted[mid] as string) < word) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
