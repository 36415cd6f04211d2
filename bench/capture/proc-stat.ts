// One process's CPU and memory from /proc/PID/stat, in seconds and MB.
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;
const PAGE_BYTES = 4096;

export interface Stat {
  state: string;
  /** utime + stime. */
  own: number;
  /** Children waited for (cutime + cstime). */
  waited: number;
  rssMb: number;
}

export function readStat(file: string): Stat | null {
  const text = readProc(file, null);
  if (text === null) return null; // gone meanwhile
  // fields after the command: state is [0]; utime, stime, cutime, cstime are [11]..[14]; rss (pages) is [21]
  const f = text.slice(text.lastIndexOf(') ') + 2).split(' ');
  const n = (i: number) => Number(f[i]);
  return { state: f[0] as string, own: (n(11) + n(12)) / TICKS_PER_SECOND, waited: (n(13) + n(14)) / TICKS_PER_SECOND, rssMb: (n(21) * PAGE_BYTES) / 1e6 };
}

export function readProc<T extends string | null>(file: string, fallback: T): string | T {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}
