// Decisions: docs/decisions/0049-hand-written-index-library-lru.md, docs/decisions/0074-cjk-words-in-search.md, docs/decisions/0103-builtin-search-kept-orders.md
import { MAX_TOTAL_HITS, type SearchFilter, type SearchRequest, type SortField } from '../../core/search/search.js';
import { hasCjk } from './cjk-words.js';
import { emptyLists, fieldsOf, postDocument } from './posting-lists.js';
import { FieldOrder } from './field-order.js';
import { bySort, predicate, type IndexedDocument } from './indexed-document.js';
import { NewestOrder } from './newest-order.js';
import { walkField, walkNewest, type Walk, type Walked } from './ordered-walk.js';
import { TermMatcher, TITLE_SCORE, type PostingLists, type Term } from './term-matcher.js';
import { SmallestKeys, TopK } from './top-k.js';
import { Vocabulary } from './vocabulary.js';

/** What a query asks of the index: every term and gram term matched; whole words and an id rank first. */
export interface QueryTerms {
  /** Words (and their completions or corrections). */
  terms: readonly Term[];
  /** Grams of CJK text (cjk-words.ts): each must match, and adds nothing to the score. */
  grams?: readonly Term[];
  /** Whole CJK words: a document need not hold them; each it holds adds to its score as a term does. */
  bonus?: readonly Term[];
  /** Record ids the query may be: a live one (that passes the filter) comes first, whatever else matches. */
  ids?: readonly string[];
}

export interface IndexQuery extends QueryTerms {
  filter: SearchFilter | null;
  sort: SearchRequest['sort'];
  offset: number;
  limit: number;
}

/** Slots of replaced or removed documents tolerated before the lists are rebuilt without them. */
const MIN_DEAD_TO_COMPACT = 1000;
/**
 * A walk of a kept order reads at most this share of the slots (1/16: half a scan's time, a slot
 * out of memory order costing about 8 of a scan's) or WALK_BUDGET_MIN, before the scan takes over.
 */
const WALK_BUDGET_SHARE = 16;
const WALK_BUDGET_MIN = 4 * MAX_TOTAL_HITS;

/**
 * Posting lists of the documents' words, in memory: which documents (by slot) hold each word in
 * their title and in their channel name, and every slot's place newest first; once a search has
 * sorted the whole index by a field, every slot's place in that field's order (field-order.ts). A
 * document whose words or sort values change takes a new slot; the old one is left dead (its
 * document kept, for the orders) until enough are to rebuild the lists without them.
 */
export class MemoryIndex {
  private slots: IndexedDocument[] = [];
  /** 1 for a live slot: read where a match is counted, without touching its document. */
  private alive = new Uint8Array(1024);
  private slotOf = new Map<string, number>();
  private lists: PostingLists = emptyLists();
  /** Words found by prefix and typo corrections: none with CJK letters (those are found by their grams). */
  private words = new Vocabulary();
  private grams = new Vocabulary(false);
  /** One string for each distinct word and field value, shared by every document holding it (most of the index's memory otherwise). */
  private strings = new Map<string, string>();
  private dead = 0;
  /** Every slot (dead ones too), newest first. */
  private newest = new NewestOrder(this.slots);
  /** The kept orders of sort fields, each made at the first search that sorts the whole index by it. */
  private orders = new Map<SortField, FieldOrder>();
  private matcher = new TermMatcher();

  get size(): number {
    return this.slotOf.size;
  }

  get vocabulary(): Vocabulary {
    return this.words;
  }

  /** The grams that begin with `letter`: every place a CJK letter is, as a prefix of the pair it begins or as the last of its run. */
  gramsBeginning(letter: string): string[] {
    return this.grams.completions(letter);
  }

  /** An index of these documents. */
  static of(documents: Iterable<IndexedDocument>): MemoryIndex {
    const index = new MemoryIndex();
    index.addAll(documents);
    return index;
  }

  /**
   * Adds or replaces documents. A few new slots are each put in their place newest first; many
   * are put there together, by one sort at the next search.
   */
  addAll(documents: Iterable<IndexedDocument>): void {
    const fresh: number[] = [];
    for (const given of documents) {
      const document = this.interned(given);
      const slot = this.slotOf.get(document.id);
      if (slot !== undefined) {
        const old = this.slots[slot] as IndexedDocument;
        const sameText =
          sameWords(old.titleWords, document.titleWords) &&
          sameWords(old.channelWords, document.channelWords) &&
          sameWords(old.momentWords, document.momentWords);
        if (sameOrders(old, document) && sameText) {
          this.slots[slot] = document;
          continue;
        }
        this.kill(slot);
      }
      fresh.push(this.append(document));
    }
    this.newest.add(fresh);
    for (const order of this.orders.values()) order.add(fresh);
    this.compactIfWasteful();
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.kill(slot);
    this.compactIfWasteful();
  }

  /**
   * The ids of one page of the documents matching every term and the filter, in order: a
   * document whose id the query is first; then the sort asked, else best match first (a term found
   * in the title counts more than in the channel name, a whole CJK word more than its grams alone),
   * then newest first, then by id. `total` counts the matches up to MAX_TOTAL_HITS. Without words,
   * the page is read from a kept order, up to the MAX_TOTAL_HITS-th hit; with words, every match is
   * read. `examined` is the slots read.
   */
  search(query: IndexQuery): { ids: string[]; total: number; examined: number } {
    const { terms, filter, sort, offset } = query;
    const grams = query.grams ?? [];
    const bonus = query.bonus ?? [];
    const end = Math.min(offset + query.limit, MAX_TOTAL_HITS);
    const accepts = filter === null ? null : predicate(filter);
    const first = this.slotsOfIds(query.ids ?? [], accepts);
    const keep = Math.max(0, end - first.length);
    const { alive } = this;
    const newest = this.newest.sorted();
    const everything = terms.length + grams.length === 0;
    let walked: Walked | null = null;
    if (everything) {
      const budget = Math.max(WALK_BUDGET_MIN, newest.length / WALK_BUDGET_SHARE);
      // without a filter every live document is a hit: the total is the index's size, and the walk only fills the page
      walked = this.walk(sort, newest, { alive, slots: this.slots, accepts, skip: first, keep, budget, counts: accepts !== null });
      if (!walked.gaveUp) {
        const ids = [...first, ...walked.page].slice(offset, end).map((slot) => (this.slots[slot] as IndexedDocument).id);
        const total = accepts === null ? this.size : first.length + walked.counted;
        return { ids, total: Math.min(total, MAX_TOTAL_HITS), examined: walked.examined };
      }
    }
    // with words, or when the filter passed too few for a kept order to pay: every candidate, newest first
    const place = this.newest.places();
    const n = newest.length;
    const count = everything ? n : this.matcher.match(this.lists, this.slots.length, { words: terms, grams, bonus });
    const candidates: ArrayLike<number> = everything ? newest : this.matcher.found;
    let offer: (slot: number) => void;
    let page: () => number[];
    if (sort.length === 0 || (sort.length === 1 && sort[0]?.field === 'scheduledStart')) {
      // keys: score (best first), then place newest first (or oldest first): numbers, no comparator
      const ranked = sort.length === 0 && !everything;
      const oldestFirst = sort[0]?.order === 'asc';
      const best = (terms.length + bonus.length) * TITLE_SCORE;
      const { score } = this.matcher;
      const top = new SmallestKeys(keep);
      offer = (slot) => {
        const at = place[slot] as number;
        top.offer((ranked ? (best - (score[slot] as number)) * n : 0) + (oldestFirst ? n - 1 - at : at));
      };
      const slotOfKey = (key: number) => newest[oldestFirst ? n - 1 - (key % n) : key % n] as number;
      page = () => top.sorted().map(slotOfKey);
    } else {
      const top = new TopK<number>(keep, bySort(this.slots, sort));
      offer = (slot) => top.offer(slot);
      page = () => top.sorted();
    }
    let total = first.length;
    for (let i = 0; i < count; i++) {
      const slot = candidates[i] as number;
      if (alive[slot] === 0 || (accepts !== null && !accepts(this.slots[slot] as IndexedDocument))) continue;
      if (first.length > 0 && first.includes(slot)) continue;
      total += 1;
      offer(slot);
    }
    const ids = [...first, ...page()].slice(offset, end).map((slot) => (this.slots[slot] as IndexedDocument).id);
    return { ids, total: Math.min(total, MAX_TOTAL_HITS), examined: count + (walked?.examined ?? 0) };
  }

  /** A page of the whole index: newest first (or its reverse) from `newest`, any other sort from its first field's kept order. */
  private walk(sort: SearchRequest['sort'], newest: readonly number[], walk: Walk): Walked {
    const [first] = sort;
    if (first === undefined || (sort.length === 1 && first.field === 'scheduledStart'))
      return walkNewest(newest, first?.order === 'asc', { ...walk, budget: Infinity }); // in memory order: never slower than the scan
    let order = this.orders.get(first.field);
    if (order === undefined) {
      order = new FieldOrder(
        first.field,
        this.slots,
        newest.filter((slot) => this.alive[slot] === 1),
      );
      this.orders.set(first.field, order);
    }
    return walkField(order, sort, walk);
  }

  /** The live slots of these ids that pass the filter, each once. */
  private slotsOfIds(ids: readonly string[], accepts: ((document: IndexedDocument) => boolean) | null): number[] {
    const slots: number[] = [];
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined || slots.includes(slot) || (accepts !== null && !accepts(this.slots[slot] as IndexedDocument))) continue;
      slots.push(slot);
    }
    return slots;
  }

  /** A new slot for `document` (interned), in the lists (not yet in `newest`). */
  private append(document: IndexedDocument): number {
    const fresh = this.slots.length;
    this.slots.push(document);
    if (fresh >= this.alive.length) {
      const grown = new Uint8Array(this.alive.length * 2);
      grown.set(this.alive);
      this.alive = grown;
    }
    this.alive[fresh] = 1;
    this.slotOf.set(document.id, fresh);
    const fields = fieldsOf(document);
    postDocument(this.lists, fields, fresh);
    for (const word of fields.words) if (!hasCjk(word)) this.words.add(word);
    for (const gram of fields.grams) this.grams.add(gram);
    return fresh;
  }

  /** The slot is dead: left in the lists and in `newest`, skipped by searches. */
  private kill(slot: number): void {
    const document = this.slots[slot] as IndexedDocument;
    this.alive[slot] = 0;
    this.slotOf.delete(document.id);
    const fields = fieldsOf(document);
    for (const word of fields.words) if (!hasCjk(word)) this.words.remove(word);
    for (const gram of fields.grams) this.grams.remove(gram);
    this.dead += 1;
  }

  private interned(document: IndexedDocument): IndexedDocument {
    const one = (value: string) => {
      const known = this.strings.get(value);
      if (known !== undefined) return known;
      this.strings.set(value, value);
      return value;
    };
    return {
      ...document,
      status: one(document.status),
      platform: one(document.platform),
      channelId: one(document.channelId),
      titleWords: document.titleWords.map(one),
      channelWords: document.channelWords.map(one),
      momentWords: document.momentWords.map(one),
    };
  }

  /** The lists again without dead slots, once they are a quarter of them. */
  private compactIfWasteful(): void {
    if (this.dead < MIN_DEAD_TO_COMPACT || this.dead * 4 <= this.slots.length) return;
    const live = MemoryIndex.of(this.slots.filter((_, slot) => this.alive[slot] === 1));
    Object.assign(this, {
      slots: live.slots,
      alive: live.alive,
      slotOf: live.slotOf,
      lists: live.lists,
      words: live.words,
      grams: live.grams,
      strings: live.strings,
      newest: live.newest,
      orders: new Map(),
      dead: 0,
    });
  }
}

/** Whether a document keeps its places in the orders: the same start, length and size. */
function sameOrders(a: IndexedDocument, b: IndexedDocument): boolean {
  return a.start === b.start && a.length === b.length && a.fileSizeBytes === b.fileSizeBytes;
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => word === b[i]);
}
