// Decisions: docs/decisions/0131-moments-searched.md
/** A query word as matched: documents holding any of these words match it. */
export type Term = readonly string[];

/** Which documents (by slot) hold each word, in titles, channel names and moments' texts, and each gram of CJK text (cjk-words.ts): letters in pairs, and each run's last. */
export interface PostingLists {
  title: Map<string, number[]>;
  channel: Map<string, number[]>;
  moments: Map<string, number[]>;
  titleGrams: Map<string, number[]>;
  channelGrams: Map<string, number[]>;
  momentGrams: Map<string, number[]>;
}

/** What a term found in the title adds to a document's score, against one found only in its channel name, or only in a moment. */
export const TITLE_SCORE = 5;
export const CHANNEL_SCORE = 2;
export const MOMENT_SCORE = 1;

/** A field's words' worth in a document's score. */
const weightOf = (lists: PostingLists, field: Map<string, number[]>): number =>
  field === lists.title ? TITLE_SCORE : field === lists.channel ? CHANNEL_SCORE : MOMENT_SCORE;

/**
 * Matches a query's terms in the posting lists, with a scratch per slot reused from query to
 * query (stamps, so nothing is cleared between queries): how many terms each slot has matched,
 * its score, and the slots found.
 */
export class TermMatcher {
  private matched = new Int32Array(0);
  /** Each found slot's score, after `match`. */
  score = new Int32Array(0);
  /** The slots `match` found, in its first `count` places. */
  found = new Int32Array(0);
  private stamp = 0;
  // which bonus term last added to a slot's score (as stamps)
  private bonusOf = new Int32Array(0);
  private bonusStamp = 0;

  /**
   * Puts in `found` the slots holding every term and gram term (dead ones included) and returns
   * how many; their scores, with what whole words of the bonus add, are left in `score`.
   */
  match(lists: PostingLists, size: number, query: { words: readonly Term[]; grams: readonly Term[]; bonus: readonly Term[] }): number {
    const { words, grams, bonus } = query;
    if (this.matched.length < size) {
      this.matched = new Int32Array(size * 2);
      this.score = new Int32Array(size * 2);
      this.found = new Int32Array(size * 2);
      this.bonusOf = new Int32Array(size * 2);
      this.stamp = 0;
      this.bonusStamp = 0;
    }
    const terms = [...words.map((keys) => ({ keys, gram: false })), ...grams.map((keys) => ({ keys, gram: true }))];
    if (this.stamp + terms.length + 1 >= 0x7fffffff) {
      this.matched.fill(0);
      this.stamp = 0;
    }
    // a slot that has matched terms 0..t-1 of this query holds base + t
    const base = this.stamp + 1;
    this.stamp += terms.length + 1;
    const { matched, score, found } = this;
    let count = 0;
    for (let t = 0; t < terms.length; t++) {
      const { keys, gram } = terms[t] as { keys: Term; gram: boolean };
      for (const field of gram ? [lists.titleGrams, lists.channelGrams, lists.momentGrams] : [lists.title, lists.channel, lists.moments]) {
        const weight = gram ? 0 : weightOf(lists, field);
        for (const word of keys) {
          const list = field.get(word);
          if (list === undefined) continue;
          for (let i = 0; i < list.length; i++) {
            const slot = list[i] as number;
            const state = matched[slot] as number;
            if (t === 0 && state < base) {
              matched[slot] = base + 1;
              score[slot] = weight;
              found[count++] = slot;
            } else if (state === base + t) {
              matched[slot] = base + t + 1;
              score[slot] = (score[slot] as number) + weight;
            }
          }
        }
      }
    }
    const all = base + terms.length;
    let kept = 0;
    for (let i = 0; i < count; i++) {
      const slot = found[i] as number;
      if (matched[slot] === all) found[kept++] = slot;
    }
    if (kept > 0) this.addBonus(lists, bonus, all);
    return kept;
  }

  /** Adds to the score of each slot that matched (holds `all`) what each whole word of `bonus` it holds is worth. */
  private addBonus(lists: PostingLists, bonus: readonly Term[], all: number): void {
    if (this.bonusStamp + bonus.length + 1 >= 0x7fffffff) {
      this.bonusOf.fill(0);
      this.bonusStamp = 0;
    }
    const { matched, score, bonusOf } = this;
    for (const keys of bonus) {
      const stamp = ++this.bonusStamp;
      for (const field of [lists.title, lists.channel, lists.moments]) {
        const weight = weightOf(lists, field);
        for (const word of keys) {
          const list = field.get(word);
          if (list === undefined) continue;
          for (let i = 0; i < list.length; i++) {
            const slot = list[i] as number;
            if (matched[slot] !== all || bonusOf[slot] === stamp) continue;
            bonusOf[slot] = stamp;
            score[slot] = (score[slot] as number) + weight;
          }
        }
      }
    }
  }
}
