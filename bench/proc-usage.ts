// CPU and memory of a running process, read from /proc (Linux), for the benchmarks.
import { readdir, readFile } from 'node:fs/promises';

/** CPU seconds of a process and of its children it has waited for (Kura's ffmpeg runs), from /proc. */
export async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  // fields after the command: state is [0]; utime, stime, cutime, cstime are [11]..[14]
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks / 100;
}

/** The same CPU split three ways: node's main thread, its other threads (GC, libuv pool), waited-for children. */
export interface CpuSplit {
  main: number;
  threads: number;
  children: number;
}

export async function cpuSplit(pid: number): Promise<CpuSplit> {
  const ticks = async (file: string, fields: number[]) => {
    const after = (await readFile(file, 'utf8')).split(') ')[1]!.split(' ');
    return fields.reduce((sum, i) => sum + Number(after[i]), 0) / 100;
  };
  const own = await ticks(`/proc/${pid}/stat`, [11, 12]);
  const main = await ticks(`/proc/${pid}/task/${pid}/stat`, [11, 12]);
  return { main, threads: own - main, children: await ticks(`/proc/${pid}/stat`, [13, 14]) };
}

export const minus = (a: CpuSplit, b: CpuSplit): CpuSplit => ({ main: a.main - b.main, threads: a.threads - b.threads, children: a.children - b.children });
const total = (c: CpuSplit) => c.main + c.threads + c.children;
export const describe = (c: CpuSplit) =>
  `${total(c).toFixed(2)} (main thread ${c.main.toFixed(2)}, other threads ${c.threads.toFixed(2)}, children ${c.children.toFixed(2)})`;

export async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU seconds of a process over `seconds` of doing nothing asked of it. */
export async function idleCpu(pid: number, seconds: number): Promise<number> {
  const before = await cpuSeconds(pid);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return (await cpuSeconds(pid)) - before;
}

/**
 * CPU seconds of a process and every child it has now or has waited for: PostgreSQL's
 * postmaster and its backends, which are forked processes, not threads.
 */
export async function treeCpuSeconds(pid: number): Promise<number> {
  let sum = await cpuSeconds(pid);
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === pid) continue;
    try {
      const fields = (await readFile(`/proc/${entry}/stat`, 'utf8')).split(') ')[1]!.split(' ');
      // the parent pid is [1]
      if (Number(fields[1]) === pid) sum += await cpuSeconds(Number(entry));
    } catch {
      // gone meanwhile: its time is in the parent's waited-for children
    }
  }
  return sum;
}

/**
 * CPU seconds of the process's living threads from the scheduler's own clock
 * (`/proc/<pid>/task/<tid>/schedstat`, nanoseconds), where /proc/<pid>/stat counts 10 ms ticks:
 * precise enough for a process that runs a few milliseconds a second. A thread that exits takes
 * its time with it, so compare over a stretch in which the threads live on.
 */
export async function schedCpu(pid: number): Promise<{ main: number; threads: number }> {
  let main = 0;
  let threads = 0;
  for (const task of await readdir(`/proc/${pid}/task`)) {
    const ns = Number((await readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8').catch(() => '0')).split(' ')[0]);
    if (Number(task) === pid) main += ns / 1e9;
    else threads += ns / 1e9;
  }
  return { main, threads };
}
