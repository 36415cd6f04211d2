/**
 * Documents' JSON text by id, the most recently used kept up to a budget of characters, so the
 * pages most asked (newest first) are answered without reading PostgreSQL. The index drops a
 * document when it applies a change to it; a text read before a change and kept after it is
 * refused (`since`).
 */
export class DocumentCache {
  private readonly texts = new Map<string, string>();
  private characters = 0;
  private changes = 0;

  constructor(private readonly budget: number) {}

  get(id: string): string | undefined {
    const text = this.texts.get(id);
    if (text !== undefined) {
      this.texts.delete(id);
      this.texts.set(id, text);
    }
    return text;
  }

  /** A mark to take before reading documents elsewhere, for `keep`. */
  mark(): number {
    return this.changes;
  }

  /** Keeps `text`, unless a change was applied since `mark` (it may be older than that change). */
  keep(mark: number, id: string, text: string): void {
    if (mark !== this.changes || text.length > this.budget) return;
    this.drop(id);
    this.texts.set(id, text);
    this.characters += text.length;
    for (const [oldest, old] of this.texts) {
      if (this.characters <= this.budget) break;
      this.texts.delete(oldest);
      this.characters -= old.length;
    }
  }

  /** These documents changed (all of them: null). */
  forget(ids: Iterable<string> | null): void {
    this.changes += 1;
    if (ids === null) {
      this.texts.clear();
      this.characters = 0;
    } else {
      for (const id of ids) this.drop(id);
    }
  }

  private drop(id: string): void {
    const text = this.texts.get(id);
    if (text === undefined) return;
    this.texts.delete(id);
    this.characters -= text.length;
  }
}
