// bench/search: the built-in search engine on 100,000 records, queried as clients do (GET
// /api/search-engine/indexes/kura/search with the handed-out key) at 16 connections, next to
// /healthz and a cached /api/history page measured in the same run.
// Usage: npm run build && node dist/bench/search.js [--records 100000 --duration 10]
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseConfig } from '../src/config/config.js';
import { importLivestreams } from '../src/core/records/import-livestreams.js';
import { startKura, type RunningKura } from '../src/main.js';
import { createLogger } from '../src/wiring/logger.js';
import { searchIndexDrained } from './search-drained.js';
import { readPackageInfo } from '../src/adapters/os/package-info.js';
import { buildCorpus } from './search-corpus.js';

const run = promisify(execFile);
const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const RECORDS = Number(args.get('--records') ?? 100_000);
const DURATION = Number(args.get('--duration') ?? 10);
const CONNECTIONS = 16;

const QUERIES = {
  'one word': ['karaoke', 'piano', 'minecraft', 'graduation', 'halloween', 'cafe', 'zatsudan', 'unplugged'],
  'two words': ['karaoke night', 'piano cover', 'minecraft collab', 'acoustic songs', 'birthday concert', 'singing study', 'horror marathon', 'retro speedrun'],
  typo: ['karoke', 'minecrat', 'pianno', 'halowen', 'graduaton', 'birtday', 'valorent', 'tournamnet'],
  // words inside runs of Japanese (found since decision 0074), and parts of words
  'Japanese words': ['配信', '歌枠', 'まったり', 'ライブ', '雑談', 'コラボ', 'メン限', '誕生日'],
  'Japanese parts': ['ったり', 'ラオケ', '披露', 'ンクラ', '視聴', '衣装', 'ーム実', '記'],
};

/** Queries no two requests share (until 4,000 are spent): what the read cache cannot answer. */
function distinctQueries(records: ReadonlyArray<{ title: string }>): Record<string, string[]> {
  // from the Latin titles only, as before the corpus mixed Japanese in
  const titles = records.filter((r) => !/[\u3000-\u9fff\uac00-\ud7af]/.test(r.title)).map((r) => r.title.split(' '));
  const unique = (list: string[]) => [...new Set(list)].slice(0, 4000);
  const rare = unique(titles.flatMap((words) => [words[1] as string, words[3] as string]));
  return {
    'one word, 4,000 distinct': rare,
    'two words, 4,000 distinct': unique(titles.map((words) => `${words[0]} ${words[1]}`)),
    // a letter dropped from the middle of words of 6 letters or more
    'typo, 4,000 distinct': unique(rare.filter((w) => w.length >= 6).map((w) => w.slice(0, w.length >> 1) + w.slice((w.length >> 1) + 1))),
  };
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
}

async function load(url: string, paths: string[], headers: Record<string, string> = {}, shared = false): Promise<Load> {
  const script = path.join(readPackageInfo().root, 'dist', 'bench', 'search-load.js');
  const options = path.join(os.tmpdir(), `kura-bench-search-load-${process.pid}.json`);
  await writeFile(options, JSON.stringify({ url, paths, headers, connections: CONNECTIONS, duration: DURATION, shared }));
  const { stdout } = await run(process.execPath, [script, options], { maxBuffer: 16 * 1024 * 1024 }).finally(() => rm(options, { force: true }));
  const report = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Load & { non2xx: number; errors: number };
  if (report.non2xx > 0 || report.errors > 0) throw new Error(`${paths[0]}: ${report.non2xx} non-2xx, ${report.errors} errors`);
  return report;
}

async function measure(url: string, label: string, distinct: Record<string, string[]>): Promise<string[]> {
  const access = (await (await fetch(`${url}/api/search`)).json()) as { apiKey: string };
  const auth = { authorization: `Bearer ${access.apiKey}` };
  const engine = '/api/search-engine/indexes/kura/search';
  const healthz = await load(url, ['/healthz']);
  const history = await load(url, ['/api/history?limit=20']);
  const row = (name: string, r: Load) =>
    `| ${name}, ${label} | ${r.rps.toFixed(0)} | ${((r.rps / healthz.rps) * 100).toFixed(0)}% | ${((r.rps / history.rps) * 100).toFixed(0)}% | ${r.p50} | ${r.p99} |`;
  const rows = [row('/healthz (baseline)', healthz), row('/api/history?limit=20 (baseline)', history)];
  // the 8 queries each connection cycles through, then the distinct ones all connections share
  const runs = [...Object.entries(QUERIES).map((run) => [...run, false] as const), ...Object.entries(distinct).map((run) => [...run, true] as const)];
  for (const [name, queries, shared] of runs) {
    const paths = queries.map((q) => `${engine}?q=${encodeURIComponent(q)}&limit=20`);
    rows.push(row(`search, ${name}`, await load(url, paths, auth, shared)));
  }
  return rows;
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-search-'));
  await chmod(root, 0o755);
  let running: RunningKura | null = null; // stopped whatever happens: its PostgreSQL with it
  const start = async (cacheEntries: number) => {
    const config = parseConfig({ KURA_DATA_DIR: root, PORT: '0', LOG_LEVEL: 'warn', KURA_READ_CACHE_ENTRIES: String(cacheEntries) });
    running = await startKura(config, createLogger(config));
    return running;
  };
  try {
    const kura = await start(1000);
    const started = Date.now();
    const corpus = buildCorpus(RECORDS);
    const distinct = distinctQueries(corpus);
    await importLivestreams(kura.database, corpus);
    const imported = (Date.now() - started) / 1000;
    const indexed = await searchIndexDrained(kura.database.pool);
    const hits: string[] = [];
    const key = ((await (await fetch(`${kura.url}/api/search`)).json()) as { apiKey: string }).apiKey;
    for (const q of Object.values(QUERIES).flat()) {
      const answer = await fetch(`${kura.url}/api/search-engine/indexes/kura/search?q=${encodeURIComponent(q)}&limit=20`, {
        headers: { authorization: `Bearer ${key}` },
      });
      hits.push(`${q}: ${((await answer.json()) as { estimatedTotalHits: number }).estimatedTotalHits}`);
    }
    const rows = await measure(kura.url as string, 'cached', distinct);
    await kura.stop();
    const uncached = await start(0);
    rows.push(...(await measure(uncached.url as string, 'cache off', distinct)));
    await uncached.stop();
    console.log(
      `\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(`${RECORDS} records imported in ${imported.toFixed(1)} s, indexed by the outbox drain in ${indexed.toFixed(1)} s`);
    console.log(`hits (estimatedTotalHits, capped at 1000): ${hits.join(', ')}`);
    console.log(
      `distinct queries: ${Object.entries(distinct)
        .map(([name, list]) => `${name}: ${list.slice(0, 3).join(', ')}… (${list.length})`)
        .join('; ')}`,
    );
    console.log(
      `autocannon: ${CONNECTIONS} connections, ${DURATION} s per run after a 2 s warm-up; each connection cycles through 8 queries, or all take the next of the distinct ones\n`,
    );
    console.log('| route | req/s | / healthz | / history | p50 ms | p99 ms |');
    console.log('|---|---|---|---|---|---|');
    for (const line of rows) console.log(line);
  } finally {
    await (running as RunningKura | null)?.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
