// Section "idle": what a Kura with nothing to do costs, in ms of CPU per second, sampled once its
// start-up has settled: `kura serve` (api + worker) and a worker alone (KURA_ROLE=worker), each on
// a database of its own and with Kura's defaults (job polling, capture slots), one after the other.
import path from 'node:path';
import { cpuSplit, minus, schedCpu } from '../proc-usage.js';
import { sleep, type BenchContext } from './context.js';
import { startKura } from './kura-run.js';
import { fixed, section, table, TARGET_HEADER, targetRow } from './markdown.js';

const SETUPS: Array<[string, Record<string, string>]> = [
  ['kura serve (api + worker)', {}],
  ['KURA_ROLE=worker', { KURA_ROLE: 'worker' }],
];

export async function runIdle(ctx: BenchContext): Promise<void> {
  const { idleSettle, idleSeconds } = ctx.options;
  const rows: string[][] = [];
  const targets: string[][] = [];
  for (const [name, extra] of SETUPS) {
    const slug = name.replace(/\W+/g, '-');
    const env = {
      DATABASE_URL: await ctx.database(`idle_${slug.replace(/-/g, '_')}`),
      KURA_DATA_DIR: path.join(ctx.root, `idle-${slug}`),
      PORT: '0',
      ...extra,
    };
    const kura = await startKura(env, ctx.root, await ctx.profileDir(`idle-${slug}`));
    try {
      await sleep(idleSettle);
      const [before, preciseBefore] = [await cpuSplit(kura.pid), await schedCpu(kura.pid)];
      await sleep(idleSeconds);
      const used = minus(await cpuSplit(kura.pid), before);
      const precise = await schedCpu(kura.pid);
      const [main, threads] = [precise.main - preciseBefore.main, precise.threads - preciseBefore.threads];
      const rate = (seconds: number) => (seconds * 1000) / idleSeconds;
      const all = rate(main + threads + used.children);
      const ticks = rate(used.main + used.threads + used.children);
      rows.push([name, fixed(all), fixed(rate(main)), fixed(rate(threads)), fixed(rate(used.children)), fixed(ticks)]);
      targets.push(targetRow(`idle ${name}`, all, 0.5, ' ms/s'));
    } finally {
      await kura.stop();
    }
  }
  section(`5. Idle: ${idleSeconds} s sampled from ${idleSettle} s after start-up`, [
    table(['process', 'CPU ms/s', 'node main thread', 'other threads', 'children', 'CPU ms/s in 10 ms ticks (/proc/pid/stat)'], rows),
    '',
    table(TARGET_HEADER, targets),
  ]);
}
