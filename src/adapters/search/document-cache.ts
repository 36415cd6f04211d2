// Decisions: docs/decisions/0049-hand-written-index-library-lru.md, docs/decisions/0103-builtin-search-kept-orders.md
import { LRUCache } from 'lru-cache';

/**
 * Documents' JSON text by id, the most recently used kept up to a budget of characters, so the
 * pages most asked (newest first) are answered without reading PostgreSQL. The index drops a
 * document when it applies a change to it; a text read before a change and kept after it is
 * refused (`since`).
 */
export class DocumentCache {
  private readonly texts: LRUCache<string, string>;
  private changes = 0;

  constructor(budget: number) {
    // a text longer than the whole budget is not kept (lru-cache's maxEntrySize defaults to maxSize)
    this.texts = new LRUCache({ maxSize: budget, sizeCalculation: (text) => Math.max(1, text.length) });
  }

  get(id: string): string | undefined {
    return this.texts.get(id);
  }

  /** A mark to take before reading documents elsewhere, for `keep`. */
  mark(): number {
    return this.changes;
  }

  /** Keeps `text`, unless a change was applied since `mark` (it may be older than that change). */
  keep(mark: number, id: string, text: string): void {
    if (mark === this.changes) this.texts.set(id, text);
  }

  /** These documents changed (all of them: null). */
  forget(ids: Iterable<string> | null): void {
    this.changes += 1;
    if (ids === null) this.texts.clear();
    else for (const id of ids) this.texts.delete(id);
  }
}
