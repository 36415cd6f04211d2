// bench/search-index: the in-memory index (MemoryIndex + Vocabulary) alone, on bench/search's
// corpus without PostgreSQL: load time, heap after a full GC, and single-thread time per query (the
// page's ids; no documents read). Commit 31cba8e ran MiniSearch through the same bench (RESULTS.md).
// Usage: npm run build && node --expose-gc dist/bench/search-index.js [--records 100000]
import { performance } from 'node:perf_hooks';
import { matchWords } from '../src/adapters/search/builtin-search.js';
import type { IndexedDocument } from '../src/adapters/search/indexed-document.js';
import { MemoryIndex } from '../src/adapters/search/memory-index.js';
import { buildCorpus } from './search-corpus.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const RECORDS = Number(args.get('--records') ?? 100_000);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

const words = (text: string) =>
  [
    ...new Set(
      text
        .normalize('NFD')
        .replace(/\p{M}/gu, '')
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w !== ''),
    ),
  ].sort();

const corpus = buildCorpus(RECORDS);
const titles = corpus.filter((r) => !/[\u3000-\u9fff\uac00-\ud7af]/.test(r.title)).map((r) => r.title.toLowerCase().split(' '));
const unique = (list: string[]) => [...new Set(list)].slice(0, 1000);
const rare = unique(titles.flatMap((w) => [w[1] as string, w[3] as string]));
const KINDS: Record<string, string[]> = {
  'one word': ['karaoke', 'piano', 'minecraft', 'graduation', 'halloween', 'cafe', 'zatsudan', 'unplugged'],
  'two words': ['karaoke night', 'piano cover', 'minecraft collab', 'acoustic songs', 'birthday concert', 'singing study', 'horror marathon', 'retro speedrun'],
  typo: ['karoke', 'minecrat', 'pianno', 'halowen', 'graduaton', 'birtday', 'valorent', 'tournamnet'],
  // words inside runs of Japanese (found since decision 0074), and parts of words
  'Japanese words': ['配信', '歌枠', 'まったり', 'ライブ', '雑談', 'コラボ', 'メン限', '誕生日'],
  'Japanese parts': ['ったり', 'ラオケ', '披露', 'ンクラ', '視聴', '衣装', 'ーム実', '記'],
  'one word, 1,000 distinct': rare,
  'two words, 1,000 distinct': unique(titles.map((w) => `${w[0]} ${w[1]}`)),
  'typo, 1,000 distinct': unique(rare.filter((w) => w.length >= 6).map((w) => w.slice(0, w.length >> 1) + w.slice((w.length >> 1) + 1))),
  'filtered and sorted (karaoke, finished, length desc)': ['karaoke'],
};

/** The corpus as the index is given it (fresh objects: what the index keeps of them is its own cost). */
const documentsOf = (): IndexedDocument[] =>
  corpus
    .map((r) => ({
      id: r.id,
      start: Date.parse(r.scheduledStart),
      length: r.length ?? null,
      fileSizeBytes: r.fileSizeBytes ?? null,
      status: r.finished ? 'finished' : 'upcoming',
      finished: r.finished,
      platform: 'youtube',
      channelId: r.channelId,
      titleWords: words(r.title),
      channelWords: words(r.channelName),
      momentWords: [],
    }))
    .sort((a, b) => b.start - a.start);

gc();
const heapBefore = process.memoryUsage().heapUsed;
const given = [documentsOf()]; // popped when handed over: only what the index keeps of them stays
let started = performance.now();
const index = MemoryIndex.of(given.pop() as IndexedDocument[]);
const search = (q: string, filtered: boolean): { ids: string[]; total: number } => {
  const filter = filtered ? ({ kind: 'term', field: 'finished', equal: true, value: true } as const) : null;
  const sort = filtered ? [{ field: 'length', order: 'desc' } as const] : [];
  const split = q.split(' ');
  return index.search({ ...matchWords(index, split).query, filter, sort, offset: 0, limit: 20 });
};
search('karaoke', false); // the lazy sort newest first, a part of loading
const loadMs = performance.now() - started;
gc();
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
console.log(
  `MemoryIndex: ${RECORDS} documents loaded in ${loadMs.toFixed(0)} ms; heap ${heapMb.toFixed(1)} MB (after a full GC: the index and what it keeps of the documents)`,
);
console.log('| queries | hits (first) | mean ms | p50 ms | p99 ms | max ms |');
console.log('|---|---|---|---|---|---|');
for (const [kind, queries] of Object.entries(KINDS)) {
  const filtered = kind.startsWith('filtered');
  for (const q of queries.slice(0, 50)) search(q, filtered); // warm-up
  const times: number[] = [];
  const rounds = queries.length >= 100 ? 1 : Math.ceil(400 / queries.length);
  let first = '';
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      started = performance.now();
      const answer = search(q, filtered);
      times.push(performance.now() - started);
      first ||= `${q}: ${answer.total} (${answer.ids[0]})`;
    }
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => (times[Math.min(times.length - 1, Math.floor(times.length * p))] as number).toFixed(3);
  const mean = times.reduce((s, t) => s + t, 0) / times.length;
  console.log(`| ${kind} | ${first} | ${mean.toFixed(3)} | ${at(0.5)} | ${at(0.99)} | ${at(1)} |`);
}
