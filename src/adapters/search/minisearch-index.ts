import MiniSearch from 'minisearch';
import { MAX_TOTAL_HITS, type MatchedWord, type SearchFilter, type SearchRequest } from '../../core/search/search.js';
import { newestFirst, predicate, bySort, type IndexedDocument } from './indexed-document.js';
import { TopK } from './top-k.js';

// PROTOTYPE for issue 16: MemoryIndex's job done by MiniSearch (matching, prefix, typos), measured against it.
const TITLE_SCORE = 5;
const CHANNEL_SCORE = 2;
const MIN_TYPO_LENGTH = 4;

export interface WordsQuery {
  words: readonly string[];
  filter: SearchFilter | null;
  sort: SearchRequest['sort'];
  offset: number;
  limit: number;
}

/** Posting lists, prefixes and typos by MiniSearch; filters, ranking and paging as MemoryIndex does them. */
export class MiniSearchIndex {
  private readonly mini = new MiniSearch<IndexedDocument>({
    fields: ['titleWords', 'channelWords'],
    extractField: (document, field) => (field === 'id' ? document.id : (document[field as 'titleWords' | 'channelWords'] ?? []).join(' ')),
    tokenize: (text) => text.split(' '),
    processTerm: (term) => term || null,
  });
  private readonly documents = new Map<string, IndexedDocument>();

  get size(): number {
    return this.documents.size;
  }

  addAll(documents: Iterable<IndexedDocument>): void {
    for (const document of documents) {
      if (this.documents.has(document.id)) this.mini.discard(document.id);
      this.documents.set(document.id, document);
      this.mini.add(document);
    }
  }

  remove(id: string): void {
    if (!this.documents.delete(id)) return;
    this.mini.discard(id);
  }

  search(query: WordsQuery): { ids: string[]; total: number; matched: MatchedWord[] } {
    const { words, filter, sort, offset } = query;
    const accepts = filter === null ? () => true : predicate(filter);
    const keep = Math.min(offset + query.limit, MAX_TOTAL_HITS);
    const matched: MatchedWord[] = [];
    let scores: Map<string, number> | null = null;
    words.forEach((word, i) => {
      const last = i === words.length - 1;
      let hits = this.mini.search(word, { prefix: last, fuzzy: false });
      let fuzzy = false;
      if (hits.length === 0 && [...word].length >= MIN_TYPO_LENGTH) {
        hits = this.mini.search(word, { fuzzy: 0.2 });
        fuzzy = hits.length > 0;
      }
      if (fuzzy) for (const term of new Set(hits.flatMap((h) => h.terms))) matched.push({ word: term, prefix: false });
      else matched.push({ word, prefix: last && hits.length > 0 });
      const next = new Map<string, number>();
      for (const hit of hits) {
        const before = scores === null ? 0 : scores.get(hit.id as string);
        if (before === undefined) continue;
        const inTitle = Object.values(hit.match).some((fields) => fields.includes('titleWords'));
        next.set(hit.id as string, before + (inTitle ? TITLE_SCORE : CHANNEL_SCORE));
      }
      scores = next;
    });
    const ids = scores === null ? [...this.documents.keys()] : [...(scores as Map<string, number>).keys()];
    const byId = (id: string) => this.documents.get(id) as IndexedDocument;
    const compare =
      sort.length > 0
        ? (a: string, b: string) => bySort([byId(a), byId(b)], sort)(0, 1)
        : (a: string, b: string) => (scores?.get(b) ?? 0) - (scores?.get(a) ?? 0) || newestFirst(byId(a), byId(b));
    const top = new TopK<string>(keep, compare);
    let total = 0;
    for (const id of ids) {
      if (!accepts(byId(id))) continue;
      total += 1;
      top.offer(id);
    }
    return { ids: top.sorted().slice(offset), total: Math.min(total, MAX_TOTAL_HITS), matched };
  }

  /** The library's own AND query and BM25 order (not the spec's ranking), paged: its best case. */
  native(query: WordsQuery): { ids: string[]; total: number } {
    const { words, filter, offset } = query;
    const accepts = filter === null ? null : predicate(filter);
    const hits = this.mini.search(words.join(' '), {
      combineWith: 'AND',
      prefix: (_term, i, terms) => i === terms.length - 1,
      fuzzy: (term) => (term.length >= MIN_TYPO_LENGTH ? 0.2 : false),
      ...(accepts === null ? {} : { filter: (hit) => accepts(this.documents.get(hit.id as string) as IndexedDocument) }),
    });
    return { ids: hits.slice(offset, offset + query.limit).map((h) => h.id as string), total: Math.min(hits.length, MAX_TOTAL_HITS) };
  }
}
