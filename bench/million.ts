// bench/million: issue 52's "a million records start in seconds", as an operator meets it: N records
// (1,000,000 by default) imported and drained into the built-in index, then `kura serve` started
// as its own process on that data: how soon /readyz answers 200, how soon search stops answering
// 503 search_warming, the process's resident memory once the index is loaded, and the latency of
// single searches one after another (every record's word, a word in a channel, an id, a typo; p50 and p99).
// Usage: npm run build && node dist/bench/million.js [--records 1000000 --searches 300] [--data DIR]
// --data keeps the data directory for the next run (which then imports nothing).
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { tuneV8 } from '../src/cli/v8-tuning.js';
import { parseConfig } from '../src/config/config.js';
import { startKura } from '../src/main.js';
import { createLogger } from '../src/wiring/logger.js';
import { readPackageInfo } from '../src/adapters/os/package-info.js';
import { importUpTo } from './bench-records.js';
import { searchIndexDrained } from './search-drained.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const RECORDS = Number(args.get('--records') ?? 1_000_000);
const SEARCHES = Number(args.get('--searches') ?? 300);
const PORT = 18_990;

/** Imports what the data directory lacks of RECORDS, and waits for the worker to index it. */
async function prepare(root: string): Promise<string> {
  const config = parseConfig({ KURA_DATA_DIR: root, PORT: '0', LOG_LEVEL: 'warn' });
  const kura = await startKura(config, createLogger(config));
  try {
    const imported = await importUpTo(kura.database, RECORDS);
    const indexed = await searchIndexDrained(kura.database.pool);
    return `${RECORDS} records (imported in ${imported.toFixed(1)} s, indexed in ${indexed.toFixed(1)} s)`;
  } finally {
    await kura.stop();
  }
}

/** Milliseconds from `since` until `ask` answers true, asking every 20 ms. */
async function until(since: number, ask: () => Promise<boolean>): Promise<number> {
  while (!(await ask().catch(() => false))) await new Promise((resolve) => setTimeout(resolve, 20));
  return Date.now() - since;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

async function main(): Promise<void> {
  tuneV8('long');
  const kept = args.get('--data');
  const root = kept ?? (await mkdtemp(path.join(os.tmpdir(), 'kura-bench-million-')));
  if (kept !== undefined) await mkdir(kept, { recursive: true });
  await chmod(root, 0o755);
  try {
    const data = await prepare(root);
    const url = `http://127.0.0.1:${PORT}`;
    const cli = path.join(readPackageInfo().root, 'dist', 'src', 'cli.js');
    const started = Date.now();
    const serve = spawn(process.execPath, [cli, 'serve'], {
      env: { PATH: process.env.PATH ?? '', HOME: os.homedir(), KURA_DATA_DIR: root, PORT: String(PORT), LOG_LEVEL: 'warn', KURA_TRUST_PROXY: 'loopback' },
      stdio: 'ignore',
    });
    try {
      const ready = await until(started, async () => (await fetch(`${url}/readyz`)).status === 200);
      const access = (await (await fetch(`${url}/api/search`)).json()) as { apiKey: string; index: string };
      // each search from an address of its own (Kura trusts loopback's X-Forwarded-For): one client would meet the per-client rate limit
      let searches = 0;
      const search = (body: object) =>
        fetch(`${url}/api/search-engine/indexes/${access.index}/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${access.apiKey}`, 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${(searches++ % 250) + 1}` },
          body: JSON.stringify(body),
        });
      const warm = await until(started, async () => (await search({ q: 'karaoke', limit: 1 })).status === 200);
      // the bench's titles are "Karaoke night N" in 50 channels: every record, one channel's, one id, a typo
      const queries = [{ q: 'karaoke' }, { q: 'night', filter: 'channelId = "UC0000000000000000000007"' }, { q: 'rec00000042' }, { q: 'karaok', limit: 20 }];
      const latencies: number[] = [];
      // the first of each kind compiles its paths: a warm-up, not counted
      for (const query of queries) await (await search(query)).arrayBuffer();
      for (let i = 0; i < SEARCHES; i++) {
        const begun = performance.now();
        const response = await search(queries[i % queries.length] as object);
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`search answered ${response.status}`);
        latencies.push(performance.now() - begun);
      }
      latencies.sort((a, b) => a - b);
      const status = await readFile(`/proc/${serve.pid}/status`, 'utf8');
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
      console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}; ${data}`);
      console.log('| /readyz 200 after | search answers after | resident memory | search p50 | p99 | max |');
      console.log('|---|---|---|---|---|---|');
      console.log(
        `| ${(ready / 1000).toFixed(2)} s | ${(warm / 1000).toFixed(1)} s | ${rss.toFixed(0)} MB | ${percentile(latencies, 50).toFixed(1)} ms | ${percentile(latencies, 99).toFixed(1)} ms | ${(latencies.at(-1) ?? NaN).toFixed(1)} ms |`,
      );
    } finally {
      serve.kill('SIGTERM');
      await new Promise((resolve) => serve.once('exit', resolve));
    }
  } finally {
    if (kept === undefined) await rm(root, { recursive: true, force: true });
  }
}

await main();
