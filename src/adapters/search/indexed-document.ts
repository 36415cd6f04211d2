import type { SearchFilter, SearchRequest, SortField } from '../../core/search/search.js';

/** What the index keeps of a search document: its words, and the fields filters and sorts read. */
export interface IndexedDocument {
  id: string;
  /** The scheduled start, in milliseconds since 1970. */
  start: number;
  length: number | null;
  fileSizeBytes: number | null;
  status: string;
  finished: boolean;
  platform: string;
  channelId: string;
  /** Words of the title and of the channel name, normalised as the database does (no accents, lower case). */
  titleWords: string[];
  channelWords: string[];
  /** Words of its moments' texts (migration 0039), normalised likewise. */
  momentWords: string[];
}

const SORT_VALUES = {
  scheduledStart: (d: IndexedDocument) => d.start,
  length: (d: IndexedDocument) => d.length,
  fileSizeBytes: (d: IndexedDocument) => d.fileSizeBytes,
} as const;

/** The document's value of a sort field; null when it has none (no archive yet). */
export function sortValue(field: SortField, document: IndexedDocument): number | null {
  return SORT_VALUES[field](document);
}

/** Newest first, then by id, descending: the order of last resort. */
export function newestFirst(x: IndexedDocument, y: IndexedDocument): number {
  return y.start - x.start || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0);
}

/** The order `sort` asks, documents without the value (no archive yet) last, then newest first; on slots. */
export function bySort(slots: readonly IndexedDocument[], sort: SearchRequest['sort']): (a: number, b: number) => number {
  return (a, b) => {
    const x = slots[a] as IndexedDocument;
    const y = slots[b] as IndexedDocument;
    for (const { field, order } of sort) {
      const u = SORT_VALUES[field](x);
      const v = SORT_VALUES[field](y);
      if (u === v) continue;
      if (u === null) return 1;
      if (v === null) return -1;
      return order === 'asc' ? u - v : v - u;
    }
    return newestFirst(x, y);
  };
}

const FILTER_VALUES = {
  finished: (d: IndexedDocument) => d.finished,
  status: (d: IndexedDocument) => d.status,
  channelId: (d: IndexedDocument) => d.channelId,
  platform: (d: IndexedDocument) => d.platform,
} as const;

/** The filter as a test of a document. */
export function predicate(filter: SearchFilter): (document: IndexedDocument) => boolean {
  if (filter.kind === 'term') {
    const read = FILTER_VALUES[filter.field];
    return filter.equal ? (d) => read(d) === filter.value : (d) => read(d) !== filter.value;
  }
  const items = filter.items.map(predicate);
  return filter.kind === 'and' ? (d) => items.every((p) => p(d)) : (d) => items.some((p) => p(d));
}
