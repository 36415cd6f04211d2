// Decisions: docs/decisions/0032-capture-targets-and-floors.md
// bench/capture: what Kura's recording costs against bare ffmpeg doing the same job, printed as
// markdown tables for bench/RESULTS.md with each target of issue 19 beside its measured value.
// What each number means: bench/capture/README.md.
// Usage: npm run build && npm run bench:capture -- [--only single,long,concurrent,idle] [--help]
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/adapters/embedded-postgres/embedded-postgres.js';
import { createContext, type BenchContext } from './context.js';
import { runConcurrent } from './concurrent.js';
import { runFloor } from './floor.js';
import { runIdle } from './idle.js';
import { runLong } from './long.js';
import { parseOptions, type Section } from './options.js';
import { runSingle } from './single.js';

const RUNS: Record<Section, (ctx: BenchContext) => Promise<void>> = {
  single: runSingle,
  long: runLong,
  concurrent: runConcurrent,
  idle: runIdle,
  floor: runFloor,
};

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-bench-capture-'));
  await chmod(root, 0o755);
  const database = await startEmbeddedPostgres({ dir: path.join(root, 'postgres'), log: () => undefined });
  try {
    const ctx = createContext(options, root, database.connectionString);
    const ffmpeg = execFileSync('ffmpeg', ['-hide_banner', '-version']).toString().split('\n')[0];
    console.log(`## bench/capture, ${new Date().toISOString().slice(0, 16)}Z\n`);
    console.log(`Machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${ffmpeg}.`);
    console.log(`Options: ${process.argv.slice(2).join(' ') || '(defaults)'}.`);
    for (const name of options.sections) {
      const started = Date.now();
      const load = os.loadavg()[0]?.toFixed(2);
      await RUNS[name](ctx);
      // a section's data directories and recordings go when it ends (a full run writes gigabytes); PostgreSQL stays
      for (const entry of await readdir(root)) if (!entry.startsWith('postgres')) await rm(path.join(root, entry), { recursive: true, force: true });
      console.log(
        `\n_Section ${name}: ${((Date.now() - started) / 60_000).toFixed(1)} min; load average ${load} before, ${os.loadavg()[0]?.toFixed(2)} after._`,
      );
    }
  } finally {
    await database.stop();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
