// Decisions: docs/decisions/0074-cjk-words-in-search.md
import { LRUCache } from 'lru-cache';

/** Words whose parts are remembered (a title's words recur across documents, and a search repeats them). */
const MAX_REMEMBERED_WORDS = 20_000;

// letters of the scripts written without spaces between words (Chinese characters, kana) and of
// Korean's syllable blocks: not its punctuation (【】「」、。・), which the scripts share
const CJK = '(?:(?=[\\p{L}\\p{Nl}])[\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Hangul}])';
const HAS_CJK = new RegExp(CJK, 'u');
const CJK_RUN = new RegExp(`${CJK}+`, 'gu');
const IS_CJK = new RegExp(`^${CJK}+$`, 'u');

const segmenter = new Intl.Segmenter('ja', { granularity: 'word' });

/** What the index keeps of a word of a title or channel name. */
export interface WordParts {
  /**
   * The words it is made of: itself, unless it holds CJK letters; then the segmenter's words
   * (dictionary words, runs of Latin letters or digits), but not a CJK letter alone (its grams find
   * it, and a word of each would cost as much memory as the grams of two-letter words).
   */
  words: readonly string[];
  /** Of each run of CJK letters: every two letters in a row, and its last letter alone (so one letter is found as a prefix of these). */
  grams: readonly string[];
}

const remembered = new LRUCache<string, WordParts>({ max: MAX_REMEMBERED_WORDS });

export function hasCjk(word: string): boolean {
  return HAS_CJK.test(word);
}

/** A word of only CJK letters: matched by its grams, never by prefixes or typo corrections. */
export function isCjk(word: string): boolean {
  return IS_CJK.test(word);
}

/**
 * The parts of a word as PostgreSQL split it (a run of letters: `まったり配信ライブ`,
 * `vtuber歌枠`): for one without CJK letters, itself; else, in NFKC form (half-width kana
 * full-width), the words `Intl.Segmenter` finds in it and its grams.
 */
export function partsOf(word: string): WordParts {
  if (!HAS_CJK.test(word)) return { words: [word], grams: [] };
  let parts = remembered.get(word);
  if (parts === undefined) {
    const text = word.normalize('NFKC').toLowerCase();
    parts = { words: segmentWords(text).filter((w) => !isCjk(w) || [...w].length > 1), grams: gramsOf(text) };
    remembered.set(word, parts);
  }
  return parts;
}

/** The words `Intl.Segmenter` finds in `text` (punctuation and spaces left out), each once. */
export function segmentWords(text: string): string[] {
  const words = new Set<string>();
  for (const { segment, isWordLike } of segmenter.segment(text)) if (isWordLike === true) words.add(segment);
  return [...words];
}

/** The runs of CJK letters in `text`, in order. */
export function cjkRuns(text: string): string[] {
  return text.match(CJK_RUN) ?? [];
}

/** Each run's pairs of letters in a row and its last letter, each once. */
function gramsOf(text: string): string[] {
  const grams = new Set<string>();
  for (const run of cjkRuns(text)) {
    for (const pair of pairsOf(run)) grams.add(pair);
    grams.add([...run].at(-1) as string);
  }
  return [...grams];
}

/** The pairs of letters in a row of a run of two or more (each once), all of which a text holding the run holds. */
export function pairsOf(run: string): string[] {
  const letters = [...run];
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < letters.length; i++) pairs.add(`${letters[i]}${letters[i + 1]}`);
  return [...pairs];
}

const NONE: readonly string[] = [];

/** The words and grams a document's title (or channel name) is indexed under, each once, from the words PostgreSQL made of it. */
export function fieldParts(lexemes: readonly string[]): WordParts {
  if (!lexemes.some(hasCjk)) return { words: lexemes, grams: NONE };
  const words = new Set<string>();
  const grams = new Set<string>();
  for (const lexeme of lexemes) {
    const parts = partsOf(lexeme);
    for (const word of parts.words) words.add(word);
    for (const gram of parts.grams) grams.add(gram);
  }
  return { words: [...words], grams: [...grams] };
}
