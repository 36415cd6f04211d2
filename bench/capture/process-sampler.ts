// A CPU timeline of one process from /proc, sampled every few milliseconds from the bench process
// (whose own CPU is not counted): node's main thread, its other threads, and the children it has
// waited for, plus each child's run (what it was, when it ran, what it cost), so any stretch of
// time can be priced afterwards, step by step.
import path from 'node:path';
import { isPostmaster, PostgresTree } from './postgres-tree.js';
import { readProc, readStat } from './proc-stat.js';

/** Cumulative CPU seconds at time `t` (ms since the epoch). */
export interface Sample {
  t: number;
  main: number;
  threads: number;
  /** Children waited for (the kernel's cutime + cstime). */
  waited: number;
  /** The embedded PostgreSQL's tree (0 on an external database). */
  postgres: number;
  /** PostgreSQL's CPU by role (see PostgresTree). */
  postgresRoles: Record<string, number>;
}

export interface ChildRun {
  pid: number;
  /** What it was, from its command line: remux, duration, thumbnail, or the program's name. */
  kind: string;
  command: string;
  /** First sample that saw it, first sample after it was reaped (null: still running at the end). */
  from: number;
  to: number | null;
  /** CPU seconds it cost, itself and its waited-for children (known once it was reaped). */
  cpu: number;
  peakRssMb: number;
}

export interface Timeline {
  samples: Sample[];
  children: ChildRun[];
  /** Largest resident size seen of the process and its living children together. */
  peakTreeRssMb: number;
  /** The process's own peak resident size (VmHWM). */
  peakRssMb: number;
}

/** Names a child by its command line; the finalize's steps are told apart this way. */
export function kindOf(argv: string[]): string {
  const program = path.basename(argv[0] ?? '?');
  if (program.startsWith('ffprobe')) return argv.includes('format=duration') ? 'duration (ffprobe)' : 'ffprobe';
  if (program.startsWith('ffmpeg')) {
    if (argv.includes('concat') || argv.includes('copy')) return 'remux (ffmpeg -c copy)';
    if (argv.includes('-frames:v') || argv.includes('-vframes') || argv.includes('image2')) return 'thumbnail (ffmpeg)';
    return 'ffmpeg';
  }
  return program;
}

type LiveRun = ChildRun & { lastCpu: number };

/**
 * Samples `pid` every `intervalMs` until `stop()`. Children are read from the main thread's list
 * (node spawns from it). The PostgreSQL backends in `notKura` are the bench's (see PostgresTree).
 */
export function sampleProcess(pid: number, intervalMs: number, notKura?: ReadonlySet<number>): { stop(): Promise<Timeline> } {
  const sampler = new Sampler(pid, notKura);
  sampler.tick();
  const timer = setInterval(() => sampler.tick(), intervalMs);
  return {
    async stop() {
      sampler.tick();
      clearInterval(timer);
      const peakRssMb = Number(/VmHWM:\s+(\d+) kB/.exec(readProc(`/proc/${pid}/status`, ''))?.[1] ?? 0) / 1024;
      return { samples: sampler.samples, children: sampler.children, peakTreeRssMb: sampler.peakTreeRssMb, peakRssMb };
    },
  };
}

class Sampler {
  readonly samples: Sample[] = [];
  readonly children: ChildRun[] = [];
  peakTreeRssMb = 0;
  private readonly alive = new Map<number, LiveRun>();
  /** Reaped children whose CPU the parent's counter has not shown yet. */
  private owed: LiveRun[] = [];
  /** Waited-for CPU the parent's counter shows that no reaped child has taken yet. */
  private pool = 0;
  private readonly parentCommand: string;
  /** The embedded PostgreSQL, once seen among the children: its tree is counted apart, not as a child run. */
  private postgres: PostgresTree | null = null;

  constructor(
    private readonly pid: number,
    private readonly notKura?: ReadonlySet<number>,
  ) {
    this.parentCommand = readProc(`/proc/${pid}/cmdline`, '');
  }

  tick(): void {
    const t = Date.now();
    const own = readStat(`/proc/${this.pid}/stat`);
    const main = readStat(`/proc/${this.pid}/task/${this.pid}/stat`);
    if (own === null || main === null) return;
    const listed = new Set(
      readProc(`/proc/${this.pid}/task/${this.pid}/children`, '')
        .split(' ')
        .filter((s) => s !== '')
        .map(Number),
    );
    this.peakTreeRssMb = Math.max(this.peakTreeRssMb, own.rssMb + this.observe(t, listed));
    const previous = this.samples.at(-1);
    this.pool += previous === undefined ? 0 : own.waited - previous.waited;
    this.pay(t);
    const postgres = this.postgres?.read() ?? { total: 0, roles: {} };
    this.samples.push({ t, main: main.own, threads: own.own - main.own, waited: own.waited, postgres: postgres.total, postgresRoles: postgres.roles });
  }

  /** Notes the children listed now and those reaped since the last sample; returns the living ones' resident MB. */
  private observe(t: number, listed: Set<number>): number {
    let rssMb = 0;
    for (const child of listed) {
      if (child === this.postgres?.pid) continue;
      const stat = readStat(`/proc/${child}/stat`);
      if (stat === null) continue;
      let run = this.alive.get(child);
      if (run === undefined) {
        // between fork and exec the child still shows node's command line, and an exited one none:
        // named once it has its own (one never named is counted as an unseen child)
        const command = readProc(`/proc/${child}/cmdline`, '');
        if (command === this.parentCommand || command === '') continue;
        const argv = command.split('\0').filter((a) => a !== '');
        if (isPostmaster(argv)) {
          this.postgres = new PostgresTree(child, this.notKura);
          continue;
        }
        run = { pid: child, kind: kindOf(argv), command: argv.join(' '), from: t, to: null, cpu: 0, peakRssMb: 0, lastCpu: 0 };
        this.alive.set(child, run);
        this.children.push(run);
      }
      run.lastCpu = stat.own + stat.waited;
      run.peakRssMb = Math.max(run.peakRssMb, stat.rssMb);
      rssMb += stat.rssMb;
    }
    for (const [child, run] of this.alive) {
      if (listed.has(child)) continue;
      this.alive.delete(child);
      run.to = t;
      this.owed.push(run);
    }
    return rssMb;
  }

  /** Gives the reaped children the waited-for CPU that appeared, in proportion to what each was last seen using. */
  private pay(t: number): void {
    if (this.pool <= 0) return;
    if (this.owed.length > 0) {
      const weight = this.owed.reduce((sum, r) => sum + r.lastCpu, 0);
      for (const run of this.owed) run.cpu = weight > 0 ? (this.pool * run.lastCpu) / weight : this.pool / this.owed.length;
      this.owed = [];
      this.pool = 0;
    } else if (this.alive.size === 0) {
      // a child that lived and died between two samples
      this.children.push({ pid: 0, kind: 'unseen child', command: '', from: t, to: t, cpu: this.pool, peakRssMb: 0 });
      this.pool = 0;
    }
  }
}
