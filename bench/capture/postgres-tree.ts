// The embedded PostgreSQL in Kura's process tree: the postmaster (a child of Kura's node process)
// and the processes it forks, read from /proc. A process's CPU moves into the postmaster's
// waited-for counter when it ends, so postmaster (own + waited) plus every living process (own +
// waited) is all PostgreSQL has spent, whatever ended between two samples.
import path from 'node:path';
import { readProc, readStat } from './proc-stat.js';

/** The postmaster among a process's children: the `postgres` program itself (its processes rename themselves `postgres: …`). */
export const isPostmaster = (argv: string[]) => path.basename(argv[0] ?? '') === 'postgres' && argv.includes('-D');

/** A process just forked keeps the postmaster's command line until it sets its title: read again at the next sample. */
const UNTITLED = 'not titled yet (just forked)';

/** What a PostgreSQL process is, from the title it sets: `client backends`, `checkpointer`, `autovacuum worker`, `io worker`, … */
export function roleOf(title: string): string {
  if (!title.startsWith('postgres:')) return UNTITLED;
  const name = title.replace(/^postgres:\s*/, '').trim();
  if (/^\S+ \S+ [\d.:[\]a-f]+\(\d+\)/.test(name)) return 'client backends';
  return name.replace(/\s+\d+$/, '') || 'postgres';
}

/** The role the bench's own connections are listed under: shown, but not counted as Kura's. */
export const BENCH_READS = "the bench's own reads (not counted)";

/**
 * Cumulative CPU seconds of the postmaster's tree, split by role, sampled again and again. The
 * backends in `notKura` (the bench's own connection, which must outlive the sampling: an ended
 * backend's CPU moves into the postmaster's counter) are shown as BENCH_READS, apart from the
 * total.
 */
export class PostgresTree {
  /** Each process's last-seen CPU (own + waited), kept once it ends, by pid. */
  private readonly seen = new Map<number, { role: string; cpu: number }>();

  constructor(
    readonly pid: number,
    private readonly notKura: ReadonlySet<number> = new Set(),
  ) {}

  /** Reads the tree now: its whole CPU so far, and CPU by role (`postmaster` itself; `ended unseen` what no sample saw). */
  read(): { total: number; roles: Record<string, number> } {
    const postmaster = readStat(`/proc/${this.pid}/stat`);
    if (postmaster === null) return { total: 0, roles: {} };
    let total = postmaster.own + postmaster.waited;
    let bench = 0;
    const children = readProc(`/proc/${this.pid}/task/${this.pid}/children`, '')
      .split(' ')
      .filter((s) => s !== '')
      .map(Number);
    for (const child of children) {
      const stat = readStat(`/proc/${child}/stat`);
      if (stat === null) continue;
      const cpu = stat.own + stat.waited;
      if (this.notKura.has(child)) {
        bench += cpu;
        continue;
      }
      total += cpu;
      // a process just forked still has the postmaster's command line until it sets its title
      const known = this.seen.get(child);
      const title = known !== undefined && known.role !== UNTITLED ? null : readProc(`/proc/${child}/cmdline`, '').replace(/\0/g, ' ');
      this.seen.set(child, { role: title === null ? (known?.role as string) : roleOf(title), cpu });
    }
    const roles: Record<string, number> = { postmaster: postmaster.own };
    for (const { role, cpu } of this.seen.values()) roles[role] = (roles[role] ?? 0) + cpu;
    const accounted = Object.values(roles).reduce((s, v) => s + v, 0);
    roles['ended unseen'] = Math.max(0, total - accounted);
    if (bench > 0) roles[BENCH_READS] = bench;
    return { total, roles };
  }
}
