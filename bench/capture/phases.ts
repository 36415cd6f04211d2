// Prices stretches of a CPU timeline: a phase between two moments, and a finalize cut into steps
// at every child's start and exit and at the encoder log lines Kura writes on the way.
import type { ChildRun, Sample, Timeline } from './process-sampler.js';

/** CPU seconds: node's main thread, its other threads (GC, JIT, libuv pool), its children, and its embedded PostgreSQL (postmaster and its processes). */
export interface Cost {
  main: number;
  threads: number;
  children: number;
  postgres: number;
}

export const NO_COST: Cost = { main: 0, threads: 0, children: 0, postgres: 0 };

export interface Mark {
  t: number;
  name: string;
}

export interface Step {
  label: string;
  /** remux, duration, thumbnail (a child of that kind ran throughout), or other. */
  category: string;
  seconds: number;
  cost: Cost;
}

export const total = (c: Cost) => c.main + c.threads + c.children + c.postgres;
export const sum = (costs: Cost[]): Cost =>
  costs.reduce(
    (a, c) => ({ main: a.main + c.main, threads: a.threads + c.threads, children: a.children + c.children, postgres: a.postgres + c.postgres }),
    NO_COST,
  );

/** Main and other threads, and PostgreSQL, interpolated between the samples around `t`. */
function threadsAt(samples: Sample[], t: number): { main: number; threads: number; postgres: number } {
  let hi = samples.findIndex((s) => s.t >= t);
  if (hi === -1) hi = samples.length - 1;
  const b = samples[hi] as Sample;
  const a = samples[Math.max(0, hi - 1)] as Sample;
  const f = b.t === a.t ? 1 : Math.min(1, Math.max(0, (t - a.t) / (b.t - a.t)));
  const at = (key: 'main' | 'threads' | 'postgres') => a[key] + (b[key] - a[key]) * f;
  return { main: at('main'), threads: at('threads'), postgres: at('postgres') };
}

/** What the process spent from `from` to `to`: a child counts where it was reaped. */
export function costBetween(timeline: Timeline, from: number, to: number): Cost {
  const a = threadsAt(timeline.samples, from);
  const b = threadsAt(timeline.samples, to);
  const children = timeline.children.filter((c) => c.to !== null && c.to > from && c.to <= to).reduce((s, c) => s + c.cpu, 0);
  return { main: b.main - a.main, threads: b.threads - a.threads, children, postgres: b.postgres - a.postgres };
}

function category(kinds: string[]): string {
  if (kinds.length !== 1) return kinds.length === 0 ? 'other' : 'overlapping children';
  const [kind] = kinds as [string];
  return ['remux', 'duration', 'thumbnail'].find((name) => kind.startsWith(name)) ?? 'other';
}

/** ffmpeg and ffprobe runs cut the finalize into steps; smaller helpers (`fallocate`) only add their CPU to the step they ran in. */
const isMediaTool = (c: ChildRun) => /^(remux|duration|thumbnail|ffprobe|ffmpeg)/.test(c.kind);

/** The stretch from `start` to `end` cut at each media tool's start and exit and at each of `marks`. */
export function steps(timeline: Timeline, start: Mark, end: Mark, marks: Mark[]): Step[] {
  const runs = timeline.children.filter((c): c is ChildRun & { to: number } => c.to !== null && c.from >= start.t && c.to <= end.t && isMediaTool(c));
  const bounds: Mark[] = [
    start,
    end,
    // a log line written as a child exits can read a few ms before the sampler saw the exit: the child names that step
    ...marks.filter((m) => m.t > start.t && m.t < end.t && !runs.some((r) => m.t > r.from && m.t < r.to)),
    ...runs.flatMap((r) => [
      { t: r.from, name: `${r.kind} starts` },
      { t: r.to, name: `${r.kind} exits` },
    ]),
  ].sort((a, b) => a.t - b.t);
  const out: Step[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const [a, b] = [bounds[i] as Mark, bounds[i + 1] as Mark];
    if (b.t <= a.t) continue;
    const kinds = runs.filter((r) => r.from <= a.t && r.to >= b.t).map((r) => r.kind);
    const label = kinds.length > 0 ? kinds.join(' + ') : `${a.name} → ${b.name}`;
    out.push({ label, category: category(kinds), seconds: (b.t - a.t) / 1000, cost: costBetween(timeline, a.t, b.t) });
  }
  return out;
}

/** The steps summed by category (remux, duration, thumbnail, other). */
export function byCategory(list: Step[]): Map<string, Cost> {
  const out = new Map<string, Cost>();
  for (const step of list) out.set(step.category, sum([out.get(step.category) ?? NO_COST, step.cost]));
  return out;
}

/** Each kind of child's runs and CPU, those reaped from `from` to `to` (default: the whole timeline). */
export function childrenByKind(timeline: Timeline, from = -Infinity, to = Infinity): Map<string, { runs: number; cpu: number }> {
  const out = new Map<string, { runs: number; cpu: number }>();
  for (const child of timeline.children.filter((c) => (c.to ?? Infinity) > from && (c.to ?? Infinity) <= to)) {
    const entry = out.get(child.kind) ?? { runs: 0, cpu: 0 };
    out.set(child.kind, { runs: entry.runs + 1, cpu: entry.cpu + child.cpu });
  }
  return out;
}
