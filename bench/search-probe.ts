// bench/search-probe: issue 49's probe against the built-in search engine at scale: N records
// (1,000,000 by default), then 20 strangers sending the multi-search that once held the api 9.8 s,
// back to back for 30 s, while /healthz is asked every 20 ms (bench/search-probe-clients.ts: the
// strangers in one process, the health check in another). Targets: p99 of /healthz ≤ 50 ms, of search ≤ 1 s.
// Usage: npm run build && node dist/bench/search-probe.js [--records 1000000 --seconds 30] [--data DIR]
// --data keeps Kura's data directory for the next run (which then imports nothing): a million
// records take five minutes to import and four to index.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { tuneV8 } from '../src/cli/v8-tuning.js';
import { parseConfig } from '../src/config/config.js';
import { startKura, type RunningKura } from '../src/main.js';
import { createLogger } from '../src/wiring/logger.js';
import { importUpTo } from './bench-records.js';
import { searchIndexDrained } from './search-drained.js';
import { readPackageInfo } from '../src/adapters/os/package-info.js';

const run = promisify(execFile);
const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const RECORDS = Number(args.get('--records') ?? 1_000_000);
const SECONDS = Number(args.get('--seconds') ?? 30);
const CLIENTS = 20;

async function main(): Promise<void> {
  tuneV8('long'); // as `kura serve` runs
  const kept = args.get('--data');
  const root = kept ?? (await mkdtemp(path.join(os.tmpdir(), 'kura-bench-probe-')));
  if (kept !== undefined) await mkdir(kept, { recursive: true });
  await chmod(root, 0o755);
  let kura: RunningKura | null = null;
  try {
    const config = parseConfig({ KURA_DATA_DIR: root, PORT: '0', LOG_LEVEL: 'warn', KURA_TRUST_PROXY: 'loopback' });
    kura = await startKura(config, createLogger(config));
    const imported = await importUpTo(kura.database, RECORDS);
    const indexed = await searchIndexDrained(kura.database.pool);
    if (kura.url === null) throw new Error('Kura serves no api');
    await indexLoaded(kura.url);
    const options = path.join(root, 'clients.json');
    await writeFile(options, JSON.stringify({ url: kura.url, clients: CLIENTS, seconds: SECONDS }));
    const script = path.join(readPackageInfo().root, 'dist', 'bench', 'search-probe-clients.js');
    // the strangers and the health check each in a process of their own, at once
    const outputs = await Promise.all(['strangers', 'health'].map((only) => run(process.execPath, [script, options, only], { maxBuffer: 1 << 20 })));
    const stdout = outputs.map((output) => output.stdout.trim()).join('\n');
    console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}`);
    console.log(`${RECORDS} records imported in ${imported.toFixed(1)} s, indexed in ${indexed.toFixed(1)} s; ${CLIENTS} strangers for ${SECONDS} s:`);
    console.log(stdout.trim());
  } finally {
    await kura?.stop();
    if (kept === undefined) await rm(root, { recursive: true, force: true });
  }
}

/** Resolves once a search is answered: a restarted Kura loads a kept index first (search_warming). */
async function indexLoaded(url: string): Promise<void> {
  const access = (await (await fetch(`${url}/api/search`)).json()) as { apiKey: string; index: string };
  for (;;) {
    const response = await fetch(`${url}/api/search-engine/indexes/${access.index}/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ q: '' }),
    });
    await response.arrayBuffer();
    if (response.status !== 503) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

await main();
