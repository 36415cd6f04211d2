// bench/search-sort: the probe of issue 49 against the in-memory index alone (no PostgreSQL, no
// HTTP): a multi-search of 20 queries that each sort the whole index (`q: ""`, a sort on a field,
// 20 hits), timed in the same run two ways: through MemoryIndex (kept orders, field-order.ts) and
// through the scan it replaced (every slot offered to a TopK, reimplemented here on the same
// documents). Also: the first sort by a field (its order built), a sort after a batch of changes
// (sorted in), and the memory the kept orders take.
// Usage: npm run build && node --expose-gc dist/bench/search-sort.js [--records 1000000] [--rounds 5]
import { performance } from 'node:perf_hooks';
import type { SearchFilter, SearchRequest } from '../src/core/search/search.js';
import { bySort, newestFirst, predicate, type IndexedDocument } from '../src/adapters/search/indexed-document.js';
import { MemoryIndex } from '../src/adapters/search/memory-index.js';
import { SmallestKeys, TopK } from '../src/adapters/search/top-k.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const RECORDS = Number(args.get('--records') ?? 1_000_000);
const ROUNDS = Number(args.get('--rounds') ?? 5);
const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
/** A full collection, twice around a turn of the loop: array buffers are freed after the first. */
const gc = async () => {
  collect();
  await new Promise((resolve) => setImmediate(resolve));
  collect();
};
const WORDS = ['karaoke', 'piano', 'minecraft', 'chill', 'collab', 'cover', 'study', 'retro', 'night', 'morning'];

function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

/** Synthetic documents, newest first: a tenth without an archive yet (no length or size). */
function documents(count: number): IndexedDocument[] {
  const next = random(49);
  const now = Date.UTC(2026, 10, 1);
  return Array.from({ length: count }, (_, n) => {
    const finished = next() < 0.9;
    const length = finished ? Math.floor(next() * 4 * 3600) : null;
    return {
      id: `rec${String(n).padStart(8, '0')}`,
      start: now - n * 60_000 - Math.floor(next() * 60_000),
      length,
      fileSizeBytes: length === null ? null : Math.floor(length * 400_000 * (0.5 + next())),
      status: finished ? 'finished' : 'upcoming',
      finished,
      platform: next() < 0.8 ? 'youtube' : 'hls',
      channelId: `UC${Math.floor(next() * 2000)}`,
      titleWords: [WORDS[Math.floor(next() * WORDS.length)] as string, `w${Math.floor(next() * 5000)}`].sort(),
      channelWords: [`c${Math.floor(next() * 2000)}`],
      momentWords: [],
    };
  });
}

/** The probe's multi-search: 20 queries, each a sort of everything (some filtered), 20 hits. */
const finished: SearchFilter = { kind: 'term', field: 'finished', equal: true, value: true };
const PROBE: Array<{ sort: SearchRequest['sort']; filter: SearchFilter | null }> = [];
for (const field of ['length', 'fileSizeBytes', 'scheduledStart'] as const) {
  for (const order of ['desc', 'asc'] as const) {
    PROBE.push({ sort: [{ field, order }], filter: null }, { sort: [{ field, order }], filter: finished });
  }
}
PROBE.push(
  {
    sort: [
      { field: 'length', order: 'desc' },
      { field: 'fileSizeBytes', order: 'asc' },
    ],
    filter: null,
  },
  { sort: [{ field: 'fileSizeBytes', order: 'desc' }], filter: { kind: 'term', field: 'platform', equal: true, value: 'hls' } },
  { sort: [], filter: null },
  { sort: [{ field: 'length', order: 'desc' }], filter: null },
  { sort: [{ field: 'length', order: 'asc' }], filter: finished },
  { sort: [{ field: 'scheduledStart', order: 'desc' }], filter: null },
  { sort: [{ field: 'fileSizeBytes', order: 'asc' }], filter: null },
  { sort: [{ field: 'length', order: 'desc' }], filter: finished },
);

/** The path this bench replaces (memory-index.ts before issue 49), on an index of live slots only. */
function scan(slots: readonly IndexedDocument[], newest: readonly number[], place: Int32Array, query: (typeof PROBE)[number]): string[] {
  const accepts = query.filter === null ? null : predicate(query.filter);
  const n = newest.length;
  const { sort } = query;
  let page: () => number[];
  let offer: (slot: number) => void;
  if (sort.length === 0 || (sort.length === 1 && sort[0]?.field === 'scheduledStart')) {
    const oldestFirst = sort[0]?.order === 'asc';
    const top = new SmallestKeys(20);
    offer = (slot) => top.offer(oldestFirst ? n - 1 - (place[slot] as number) : (place[slot] as number));
    page = () => top.sorted().map((key) => newest[oldestFirst ? n - 1 - (key % n) : key % n] as number);
  } else {
    const top = new TopK<number>(20, bySort(slots, sort));
    offer = (slot) => top.offer(slot);
    page = () => top.sorted();
  }
  for (let i = 0; i < n; i++) {
    const slot = newest[i] as number;
    if (accepts !== null && !accepts(slots[slot] as IndexedDocument)) continue;
    offer(slot);
  }
  return page().map((slot) => (slots[slot] as IndexedDocument).id);
}

const ms = (since: number) => performance.now() - since;
const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;

const all = documents(RECORDS);
let started = performance.now();
const index = MemoryIndex.of(all);
index.search({ terms: [], filter: null, sort: [], offset: 0, limit: 20 }); // the lazy sort newest first
console.log(`${RECORDS} documents indexed in ${ms(started).toFixed(0)} ms`);

const newest = all.map((_, slot) => slot).sort((a, b) => newestFirst(all[a] as IndexedDocument, all[b] as IndexedDocument));
const place = new Int32Array(all.length);
newest.forEach((slot, i) => (place[slot] = i));

await gc();
const buffersBefore = process.memoryUsage().arrayBuffers;
for (const field of ['length', 'fileSizeBytes', 'scheduledStart'] as const) {
  started = performance.now();
  // scheduledStart alone reads `newest`; a second sort field makes its own order
  index.search({
    terms: [],
    filter: null,
    sort: [
      { field, order: 'desc' },
      { field: 'length', order: 'asc' },
    ],
    offset: 0,
    limit: 20,
  });
  console.log(`first sort by ${field} (its order built): ${ms(started).toFixed(0)} ms`);
}
await gc();
const orderBytes = process.memoryUsage().arrayBuffers - buffersBefore;
console.log(`kept orders of 3 fields: ${(orderBytes / 1e6).toFixed(1)} MB, ${(orderBytes / RECORDS / 3).toFixed(2)} bytes per document per field`);

for (const query of PROBE) {
  const kept = index.search({ terms: [], filter: query.filter, sort: query.sort, offset: 0, limit: 20 }).ids;
  const scanned = scan(all, newest, place, query);
  if (kept.join() !== scanned.join()) throw new Error(`different hits for ${JSON.stringify(query)}`);
}

const keptTimes: number[] = [];
const scanTimes: number[] = [];
let examined = 0;
for (let round = 0; round < ROUNDS; round++) {
  started = performance.now();
  for (const query of PROBE) examined += index.search({ terms: [], filter: query.filter, sort: query.sort, offset: 0, limit: 20 }).examined;
  keptTimes.push(ms(started));
  started = performance.now();
  for (const query of PROBE) scan(all, newest, place, query);
  scanTimes.push(ms(started));
}
console.log(`| the probe's 20 queries (median of ${ROUNDS}) | ms | slots read per query |`);
console.log('|---|---|---|');
console.log(`| TopK over every slot (before) | ${median(scanTimes).toFixed(1)} | ${RECORDS} |`);
console.log(`| kept orders (after) | ${median(keptTimes).toFixed(2)} | ${Math.round(examined / ROUNDS / PROBE.length)} |`);
console.log(`| ratio | ${(median(scanTimes) / median(keptTimes)).toFixed(0)}× | |`);

// what is left: a filter no document passes is read to the end, through either path
const nothing: SearchFilter = { kind: 'term', field: 'channelId', equal: true, value: 'UCnone' };
const empty = PROBE.map((query) => ({ ...query, filter: nothing }));
const emptyKept: number[] = [];
const emptyScan: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  started = performance.now();
  for (const query of empty) index.search({ terms: [], filter: query.filter, sort: query.sort, offset: 0, limit: 20 });
  emptyKept.push(ms(started));
  started = performance.now();
  for (const query of empty) scan(all, newest, place, query);
  emptyScan.push(ms(started));
}
console.log(`the 20 queries filtered on a channel no document has: ${median(emptyScan).toFixed(1)} ms before, ${median(emptyKept).toFixed(1)} ms after`);

const next = random(7);
const changes = (count: number) =>
  Array.from({ length: count }, () => {
    const document = all[Math.floor(next() * all.length)] as IndexedDocument;
    return { ...document, length: (document.length ?? 0) + 60, fileSizeBytes: (document.fileSizeBytes ?? 0) + 1e6, status: 'finished', finished: true };
  });
for (const count of [10, 1000, 10_000]) {
  index.addAll(changes(count));
  started = performance.now();
  for (const query of PROBE) index.search({ terms: [], filter: query.filter, sort: query.sort, offset: 0, limit: 20 });
  console.log(`the probe after ${count} changed documents (new slots placed or sorted in): ${ms(started).toFixed(1)} ms`);
}
await gc();
const grownBytes = process.memoryUsage().arrayBuffers - buffersBefore;
console.log(`kept orders after the changes (grown by a quarter): ${(grownBytes / RECORDS / 3).toFixed(2)} bytes per document per field`);
