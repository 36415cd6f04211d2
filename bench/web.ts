// First load of /history in Debian's Chromium: the JS+CSS it transfers (as served, and gzipped)
// and the time until 25 entries are rendered, each run in a fresh browser context (cold cache).
// `npm run build && npm run bench:web` (options: --records 10000 --runs 7 --locale en-US; with
// --locale ja-JP the browser asks for Japanese and is sent the Japanese build).
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '../src/config/config.js';
import { importLivestreams } from '../src/core/records/import-livestreams.js';
import { startKura } from '../src/main.js';
import { createLogger } from '../src/wiring/logger.js';
import { readPackageInfo } from '../src/adapters/os/package-info.js';
import { launchBrowser } from '../test/support/browser.js';
import { buildRecords } from '../test/support/factories.js';

const args = new Map(process.argv.slice(2).map((a, i, all) => [a, all[i + 1]] as const));
const RECORDS = Number(args.get('--records') ?? 10_000);
const RUNS = Number(args.get('--runs') ?? 7);
const LOCALE = args.get('--locale') ?? 'en-US';
const BUDGET_BYTES = 150 * 1024;
const BUDGET_MS = 1000;

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-web-'));
await chmod(dataDir, 0o755); // embedded PostgreSQL runs as another user
const config = parseConfig({ KURA_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
const kura = await startKura(config, createLogger(config));
const browser = await launchBrowser();
try {
  // no thumbnails: the browser fetches nothing off this machine
  await importLivestreams(
    kura.database,
    buildRecords(RECORDS, { unfinishedEvery: 10 }).map((r) => ({ ...r, thumbnail: '' })),
  );
  const url = `${kura.url}/history`;
  const times: number[] = [];
  let assets: Array<{ name: string; transferSize: number }> = [];
  // run 0 warms the server (JIT, the read cache, PostgreSQL's buffers) and is not counted
  for (let run = 0; run <= RUNS; run += 1) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: LOCALE });
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=history-list] > li').length === 25);
    // from the start of navigation to 25 entries in the DOM, by the page's own clock
    const elapsed = await page.evaluate(() => performance.now());
    if (run > 0) times.push(elapsed);
    // what loads after the entries (the search client, when search is on) is first-load JS too
    await page.waitForLoadState('networkidle');
    assets = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => e as PerformanceResourceTiming)
        .filter((e) => /\.(js|css)$/.test(new URL(e.name).pathname))
        .map((e) => ({ name: new URL(e.name).pathname, transferSize: e.transferSize })),
    );
    await context.close();
  }
  const assetDir = path.join(readPackageInfo().root, 'dist', 'web');
  let gzipBytes = 0;
  for (const asset of assets) gzipBytes += (await stat(path.join(assetDir, `${asset.name}.gz`))).size;
  const served = assets.reduce((sum, a) => sum + a.transferSize, 0);
  const japanese = await japaneseShare(
    assetDir,
    assets.map((a) => a.name),
  );
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  const worst = times.at(-1) as number;
  console.log(`records: ${RECORDS}; runs: ${RUNS}; locale: ${LOCALE}; JS+CSS files on first load: ${assets.length}`);
  for (const asset of assets) console.log(`  ${asset.name} (${asset.transferSize} B transferred)`);
  console.log(
    `| JS+CSS gzipped | ${(gzipBytes / 1024).toFixed(1)} KiB | budget ${BUDGET_BYTES / 1024} KiB | ${gzipBytes <= BUDGET_BYTES ? 'within' : 'OVER'} |`,
  );
  console.log(`| JS+CSS as served (brotli, with headers) | ${(served / 1024).toFixed(1)} KiB | | |`);
  console.log(
    `| Japanese messages in it | ${japanese.messages} of ${japanese.of}: ${(japanese.bytes / 1024).toFixed(1)} KiB, ${(japanese.gzipBytes / 1024).toFixed(1)} KiB gzipped | | |`,
  );
  console.log(`| 25 entries rendered, median | ${median.toFixed(0)} ms | budget ${BUDGET_MS} ms | ${median <= BUDGET_MS ? 'within' : 'OVER'} |`);
  console.log(`| 25 entries rendered, slowest of ${RUNS} | ${worst.toFixed(0)} ms | | ${worst <= BUDGET_MS ? 'within' : 'OVER'} |`);
} finally {
  await browser.close();
  await kura.stop();
  await rm(dataDir, { recursive: true, force: true });
}

/**
 * The share of the Japanese catalogue that the first load carries: the messages of
 * web/messages/ja.json whose every literal piece is in the first load's JS, and their size
 * (UTF-8, and gzipped as one text), which the growth of the first load is held to.
 */
async function japaneseShare(assetDir: string, names: string[]): Promise<{ messages: number; of: number; bytes: number; gzipBytes: number }> {
  const code = (await Promise.all(names.filter((n) => n.endsWith('.js')).map((n) => readFile(path.join(assetDir, n), 'utf8')))).join('\n');
  const catalogue = JSON.parse(await readFile(path.join(assetDir, 'messages', 'ja.json'), 'utf8')) as Record<string, unknown>;
  const texts = Object.entries(catalogue)
    .filter(([key]) => key !== '$schema')
    .map(([, value]) => (typeof value === 'string' ? [value] : Object.values((value as Array<{ match: Record<string, string> }>)[0]?.match ?? {})));
  const carried = texts.filter((variants) => variants.every((text) => text.split(/\{\w+\}/).every((piece) => code.includes(piece))));
  const text = carried.flat().join('\n');
  return { messages: carried.length, of: texts.length, bytes: Buffer.byteLength(text), gzipBytes: gzipSync(text).length };
}
