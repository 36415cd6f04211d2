// Decisions: docs/decisions/0019-submission.md
/**
 * Answers about source URLs (each may run yt-dlp or fetch a playlist) kept for `ttlMs`, at most
 * `maxEntries` of them: repeated lookups of one URL — a submit form asking as the user types —
 * cost one look at the source.
 */
export class LookupCache<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit !== undefined && now - hit.at < this.ttlMs) return hit.value;
    const value = load();
    this.entries.delete(key);
    this.entries.set(key, { at: now, value });
    value.catch(() => this.entries.delete(key)); // a failure is not remembered
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }
}
