import { describe, expect, it } from 'vitest';
import { MAX_TOTAL_HITS, type SearchFilter, type SearchRequest } from '../../src/core/search/search.js';
import type { IndexedDocument } from '../../src/adapters/search/indexed-document.js';
import { MemoryIndex } from '../../src/adapters/search/memory-index.js';
import type { Term } from '../../src/adapters/search/term-matcher.js';

// The in-memory index against the plainest reading of its contract (filter every document, sort
// them all), through thousands of additions, changes, reschedulings and removals: enough removals
// that the index rebuilds its lists on the way.
const WORDS = ['karaoke', 'karaokes', 'night', 'piano', 'cover', 'chill', 'study', 'retro', 'live', 'sakura'];

function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

function documentOf(next: () => number, id: string, start: number): IndexedDocument {
  const some = (n: number) => [...new Set(Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)] as string))].sort();
  const finished = next() < 0.7;
  return {
    id,
    start,
    length: finished ? Math.floor(next() * 5) * 600 : null,
    fileSizeBytes: finished ? Math.floor(next() * 1e6) : null,
    status: finished ? 'finished' : 'upcoming',
    finished,
    platform: next() < 0.5 ? 'youtube' : 'hls',
    channelId: `UC${Math.floor(next() * 5)}`,
    titleWords: some(3),
    channelWords: some(1),
    momentWords: [],
  };
}

/** The contract, the slow way. */
function expected(documents: Iterable<IndexedDocument>, terms: Term[], filter: SearchFilter | null, sort: SearchRequest['sort']) {
  const matches = (d: IndexedDocument, f: SearchFilter): boolean =>
    f.kind === 'term' ? (d[f.field] === f.value) === f.equal : f.kind === 'and' ? f.items.every((i) => matches(d, i)) : f.items.some((i) => matches(d, i));
  const score = (d: IndexedDocument) => terms.reduce((sum, term) => sum + (term.some((w) => d.titleWords.includes(w)) ? 5 : 2), 0);
  const hits = [...documents].filter(
    (d) => terms.every((term) => term.some((w) => d.titleWords.includes(w) || d.channelWords.includes(w))) && (filter === null || matches(d, filter)),
  );
  hits.sort((x, y) => {
    for (const { field, order } of sort) {
      const key = { scheduledStart: 'start', length: 'length', fileSizeBytes: 'fileSizeBytes' } as const;
      const u = x[key[field]];
      const v = y[key[field]];
      if (u === v) continue;
      if (u === null) return 1;
      if (v === null) return -1;
      return order === 'asc' ? u - v : v - u;
    }
    return (sort.length === 0 ? score(y) - score(x) : 0) || y.start - x.start || (x.id < y.id ? 1 : -1);
  });
  return hits;
}

describe('the in-memory index', () => {
  it('answers as filtering and sorting every document would, through changes and removals', () => {
    const next = random(7);
    const index = new MemoryIndex();
    const live = new Map<string, IndexedDocument>();
    const starts = new Set<number>();
    const uniqueStart = () => {
      let start: number;
      do start = Math.floor(next() * 1e9);
      while (starts.has(start));
      starts.add(start);
      return start;
    };
    const queries: Array<{ terms: Term[]; filter: SearchFilter | null; sort: SearchRequest['sort'] }> = [
      { terms: [['karaoke']], filter: null, sort: [] },
      { terms: [['karaoke', 'karaokes'], ['night']], filter: null, sort: [] },
      { terms: [['piano'], ['cover'], ['sakura']], filter: null, sort: [] },
      { terms: [['chill']], filter: { kind: 'term', field: 'finished', equal: true, value: true }, sort: [{ field: 'scheduledStart', order: 'asc' }] },
      {
        terms: [],
        filter: {
          kind: 'or',
          items: [
            { kind: 'term', field: 'channelId', equal: true, value: 'UC1' },
            { kind: 'term', field: 'platform', equal: false, value: 'hls' },
          ],
        },
        sort: [],
      },
      { terms: [['study']], filter: null, sort: [{ field: 'length', order: 'desc' }] },
      {
        terms: [['retro']],
        filter: null,
        sort: [
          { field: 'fileSizeBytes', order: 'asc' },
          { field: 'scheduledStart', order: 'desc' },
        ],
      },
      { terms: [['nothing']], filter: null, sort: [] },
    ];
    const check = () => {
      for (const query of queries) {
        const all = expected(live.values(), query.terms, query.filter, query.sort);
        for (const [offset, limit] of [
          [0, 20],
          [15, 10],
          [990, 20],
        ] as const) {
          const got = index.search({ ...query, offset, limit });
          expect(got.total).toBe(Math.min(all.length, MAX_TOTAL_HITS));
          expect(got.ids).toEqual(all.slice(offset, Math.min(offset + limit, MAX_TOTAL_HITS)).map((d) => d.id));
        }
      }
      expect(index.size).toBe(live.size);
    };
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 1000; i++) {
        const roll = next();
        const ids = [...live.keys()];
        if (roll < 0.5 || ids.length === 0) {
          const document = documentOf(next, `doc${round}-${i}`, uniqueStart());
          index.addAll([document]);
          live.set(document.id, document);
        } else {
          const id = ids[Math.floor(next() * ids.length)] as string;
          if (roll < 0.65) {
            const document = { ...(live.get(id) as IndexedDocument), status: 'finished', finished: true, length: 60 }; // same words, in place
            index.addAll([document]);
            live.set(id, document);
          } else if (roll < 0.75) {
            const document = documentOf(next, id, uniqueStart()); // new words, rescheduled
            index.addAll([document]);
            live.set(id, document);
          } else {
            index.remove(id);
            live.delete(id);
          }
        }
      }
      check();
    }
    const rebuilt = MemoryIndex.of([...live.values()]);
    const page = (of: MemoryIndex) => {
      const { ids, total } = of.search({ ...queries[1]!, offset: 0, limit: 50 });
      return { ids, total };
    };
    expect(page(rebuilt)).toEqual(page(index));
  });

  it('answers a sort of the whole index from kept orders, reading a page rather than every document, through changes', () => {
    const next = random(11);
    const live = new Map<string, IndexedDocument>();
    let start = 0;
    const fresh = (id: string) => documentOf(next, id, (start += 1 + Math.floor(next() * 1000)));
    for (let i = 0; i < 6000; i++) live.set(`d${i}`, fresh(`d${i}`));
    const index = MemoryIndex.of(live.values());
    const finished: SearchFilter = { kind: 'term', field: 'finished', equal: true, value: true };
    const hls: SearchFilter = { kind: 'term', field: 'platform', equal: true, value: 'hls' };
    // passed by a few documents (changed below): a walk of a kept order gives up, the scan answers
    const deleted: SearchFilter = { kind: 'term', field: 'status', equal: true, value: 'deleted' };
    const sorts: Array<SearchRequest['sort']> = [[]];
    for (const field of ['scheduledStart', 'length', 'fileSizeBytes'] as const) {
      for (const order of ['asc', 'desc'] as const) {
        sorts.push([{ field, order }]);
        const other = field === 'length' ? 'fileSizeBytes' : 'length';
        sorts.push([
          { field, order },
          { field: other, order: order === 'asc' ? 'desc' : 'asc' },
        ]);
      }
    }
    const filters: Array<SearchFilter | null> = [null, finished, hls, deleted];
    const check = (deadSlots: boolean) => {
      for (const sort of sorts) {
        for (const filter of filters) {
          const all = expected(live.values(), [], filter, sort);
          for (const [offset, limit] of [
            [0, 20],
            [37, 5],
            [980, 40],
          ] as const) {
            const got = index.search({ terms: [], filter, sort, offset, limit });
            expect(got.ids).toEqual(all.slice(offset, Math.min(offset + limit, MAX_TOTAL_HITS)).map((d) => d.id));
            expect(got.total).toBe(Math.min(all.length, MAX_TOTAL_HITS));
            // up to the 1,000th hit (the count): twice that through a filter half pass, more past dead
            // slots; not all 6,000 and more. The lengths take 5 values, so a sort by length then size
            // reads whole runs of one length.
            if (filter !== deleted && (sort.length === 1 || sort[0]?.field !== 'length')) expect(got.examined).toBeLessThan(3 * MAX_TOTAL_HITS);
            // without a filter every document is a hit: the total is the index's size, and only the page is read
            if (filter === null && sort.length <= 1 && !deadSlots) expect(got.examined).toBe(Math.min(offset + limit, MAX_TOTAL_HITS));
          }
        }
      }
    };
    check(false);
    for (const batch of [1, 5, 32, 33, 400, 2500]) {
      const ids = [...live.keys()];
      const changed: IndexedDocument[] = [];
      for (let i = 0; i < batch; i++) {
        const roll = next();
        const id = ids[Math.floor(next() * ids.length)] as string;
        const current = changed.some((d) => d.id === id) ? undefined : live.get(id); // each document changed once a batch
        if (roll < 0.3 || current === undefined) changed.push(fresh(`n${batch}-${i}`));
        else if (roll < 0.5) changed.push({ ...current, length: Math.floor(next() * 5) * 600, fileSizeBytes: Math.floor(next() * 1e6) });
        else if (roll < 0.6)
          changed.push({ ...current, status: 'deleted' }); // no sort value changed
        else if (roll < 0.7)
          changed.push({ ...fresh(id), titleWords: current.titleWords }); // rescheduled
        else {
          live.delete(id);
          index.remove(id);
        }
        const last = changed.at(-1);
        if (last !== undefined) live.set(last.id, last);
      }
      index.addAll(changed);
      check(true);
    }
  });

  it("reads a few of a long run's values to find where it ends, not the whole run (a million documents may share a hundred lengths)", () => {
    const next = random(5);
    // 40 lengths, 500 documents each
    const documents = Array.from({ length: 20_000 }, (_, i) => ({
      ...documentOf(next, `r${i}`, i * 1000),
      length: 3600 + (i % 40) * 60,
      finished: true,
      status: 'finished',
    }));
    const index = MemoryIndex.of(documents);
    const sort: SearchRequest['sort'] = [{ field: 'length', order: 'desc' }];
    index.search({ terms: [], filter: null, sort, offset: 0, limit: 1 }); // the kept order made
    // every read of a length the index holds is counted from here (the index keeps its own copies)
    let reads = 0;
    for (const kept of (index as unknown as { slots: IndexedDocument[] }).slots) {
      const { length } = kept;
      Object.defineProperty(kept, 'length', { get: () => ((reads += 1), length) });
    }
    const longest = expected(documents, [], null, sort);
    for (const [offset, limit] of [
      [0, 20],
      [490, 20], // across two runs
    ] as const) {
      reads = 0;
      const got = index.search({ terms: [], filter: null, sort, offset, limit });
      expect(got.ids).toEqual(longest.slice(offset, offset + limit).map((d) => d.id));
      expect(reads).toBeLessThan(60);
    }
  });

  it('knows the words documents hold, by prefix and by likeness, and forgets those no document holds', () => {
    const index = MemoryIndex.of([
      {
        id: 'a',
        start: 1,
        length: null,
        fileSizeBytes: null,
        status: 'upcoming',
        finished: false,
        platform: 'hls',
        channelId: 'UC1',
        titleWords: ['karaoke', 'night'],
        channelWords: ['sakura'],
        momentWords: [],
      },
      {
        id: 'b',
        start: 2,
        length: null,
        fileSizeBytes: null,
        status: 'upcoming',
        finished: false,
        platform: 'hls',
        channelId: 'UC1',
        titleWords: ['karaokes'],
        channelWords: ['sakura'],
        momentWords: [],
      },
    ]);
    expect(index.vocabulary.completions('kara')).toEqual(['karaoke', 'karaokes']);
    expect(index.vocabulary.similar('karoke', 3)).toEqual(['karaoke', 'karaokes']);
    expect(index.vocabulary.documents('sakura')).toBe(2);
    index.remove('b');
    expect(index.vocabulary.completions('kara')).toEqual(['karaoke']);
    expect(index.vocabulary.similar('karoke', 3)).toEqual(['karaoke']);
    expect(index.vocabulary.documents('sakura')).toBe(1);
  });
});
