// Decisions: docs/decisions/0049-hand-written-index-library-lru.md
/**
 * Trigrams as PostgreSQL's pg_trgm makes them: each run of letters and digits, lower-cased and
 * padded with two spaces before and one after, cut into every three consecutive characters.
 */
export function trigrams(text: string): Set<string> {
  const set = new Set<string>();
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '') continue;
    const padded = [' ', ' ', ...word, ' '];
    for (let i = 0; i + 3 <= padded.length; i++) set.add(padded.slice(i, i + 3).join(''));
  }
  return set;
}

/** pg_trgm's `similarity`: trigrams shared over trigrams in either. */
export function similarity(shared: number, sizeA: number, sizeB: number): number {
  const union = sizeA + sizeB - shared;
  return union === 0 ? 0 : shared / union;
}
