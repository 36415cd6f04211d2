// The markdown of section "single": one capture's phases, its whole tree's CPU (node, children,
// PostgreSQL) against bare ffmpeg and streamlink, PostgreSQL by role and by statement, and frames.
import type { LiveRuns } from './bare-ffmpeg.js';
import { COST_HEADER, costCells, fixed, fixedSpread, section, table, TARGET_HEADER, targetRow } from './markdown.js';
import { byCategory, sum, total, type Cost } from './phases.js';
import { describeChildren, remuxCost, type CaptureCost, type Frames, type MeasuredCapture } from './single-figures.js';
import { STREAMLINK_COMMAND } from './streamlink.js';

/** Prints one measured capture; `streamlinkLimit` is the target for Kura's whole tree ÷ streamlink's. */
export function printSingle(title: string, m: MeasuredCapture, streamlinkLimit: number): void {
  const c = m.cost;
  const idle = scaled(m.idle.cost, c.wall.total / m.idle.seconds);
  const baseline = (name: string, runs: LiveRuns | null) =>
    runs === null ? [] : [[`${name} (median of ${runs.cpu.runs} at once, range)`, '', fixedSpread(runs.cpu), '', '', '', '']];
  const rows = [
    ['queued → capturing (watch until on air, claim)', fixed(c.wall.queuedToCapturing, 1), ...costCells(c.beforeCapture)],
    ['recording (capture started → ended)', fixed(c.wall.recording, 1), ...costCells(c.recording)],
    ...c.finalize.map((s) => [`finalize: ${s.label}`, fixed(s.seconds, 2), ...costCells(s.cost)]),
    ['**Kura, queued → archive stored (whole tree)**', fixed(c.wall.total, 1), ...costCells(c.total).map((v, i) => (i === 0 ? `**${v}**` : v))],
    [`idle load over the same ${fixed(c.wall.total, 0)} s (measured ${fixed(m.idle.seconds, 0)} s before queueing)`, '', ...costCells(idle)],
    ['Kura less its idle load', '', ...costCells(minus(c.total, idle))],
    ...baseline('bare ffmpeg -live_start_index 0 -i URL -c copy', m.bare),
    ...baseline(STREAMLINK_COMMAND, m.streamlink),
  ];
  const categories = [...byCategory(c.finalize)].map(([name, cost]) => [`finalize: ${name}`, ...costCells(cost)]);
  categories.push(['finalize, all', ...costCells(sum(c.finalize.map((s) => s.cost)))]);
  const nodeTree = total(c.total) - c.total.postgres;
  const remux = remuxCost(c);
  const recordingAndRemux = remux === null ? Number.NaN : total(c.recording) + total(remux) - c.recording.postgres - remux.postgres;
  const streamlink = m.streamlink?.cpu.median ?? Number.NaN;
  section(title, [
    table(['phase', 'wall s', ...COST_HEADER], rows),
    '',
    table(['finalize by step kind', ...COST_HEADER], categories),
    '',
    `The finalize's children: ${describeChildren(c.finalizeChildren)}.`,
    '',
    table(['PostgreSQL process, queued → stored', 'CPU s'], rolesRows(c)),
    '',
    table(
      ['statement (pg_stat_statements, queued → stored; the bench’s own reads included)', 'calls', 'exec + plan ms'],
      m.statements.map((s) => [`\`${s.query.slice(0, 110)}\``, s.calls, fixed(s.ms, 1)]),
    ),
    '',
    `All statements, queued → stored: ${m.totals.calls} calls, ${fixed(m.totals.ms, 1)} ms; sessions (connections) opened: ${m.totals.sessions} (\`kura archive\`’s; the bench’s one is opened before queueing, and its backend’s CPU is not counted).`,
    '',
    table(['recording', 'video frames (each run)', 'duration s', 'peak RSS MB'], framesRows(m)),
    '',
    table(TARGET_HEADER, [
      targetRow(`Kura whole tree / streamlink (issue 35)`, total(c.total) / streamlink, streamlinkLimit, '×'),
      targetRow('Kura less idle load / streamlink (for information)', total(minus(c.total, idle)) / streamlink, streamlinkLimit, '×'),
      targetRow('Kura node tree (no PostgreSQL) / bare ffmpeg (issue 19)', nodeTree / m.bare.cpu.median, 2.5, '×'),
      targetRow('(recording + remux) without PostgreSQL / bare ffmpeg (issue 19)', recordingAndRemux / m.bare.cpu.median, 1.5, '×'),
    ]),
    '',
    remux === null
      ? 'No remux ffmpeg child was seen in the finalize: the remux share is unknown.'
      : `Remux = the finalize steps while the remux ffmpeg ran: the child (${fixed(remux.children)} s), node feeding it the parts and storing its output (${fixed(remux.main + remux.threads)} s), PostgreSQL meanwhile (${fixed(remux.postgres)} s).`,
  ]);
}

const scaled = (c: Cost, f: number): Cost => ({ main: c.main * f, threads: c.threads * f, children: c.children * f, postgres: c.postgres * f });
const minus = (a: Cost, b: Cost): Cost => ({
  main: a.main - b.main,
  threads: a.threads - b.threads,
  children: a.children - b.children,
  postgres: a.postgres - b.postgres,
});

function rolesRows(c: CaptureCost): string[][] {
  return Object.entries(c.postgresRoles)
    .filter(([, cpu]) => cpu >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([role, cpu]) => [role, fixed(cpu)]);
}

function framesRows(m: MeasuredCapture): Array<Array<string | number>> {
  const each = (runs: Frames[]) => runs.map((f) => f.frames).join(', ');
  const rows: Array<Array<string | number>> = [
    ['source', m.frames.source, '', ''],
    ['bare ffmpeg', each(m.frames.bare), fixed(m.frames.bare[0]?.duration ?? Number.NaN), fixed(m.bare.peakRssMb, 0)],
  ];
  if (m.streamlink !== null)
    rows.push(['streamlink', each(m.frames.streamlink), fixed(m.frames.streamlink[0]?.duration ?? Number.NaN), fixed(m.streamlink.peakRssMb, 0)]);
  const c = m.cost;
  rows.push(['Kura (node; node + children)', m.frames.ours.frames, fixed(m.frames.ours.duration), `${fixed(c.peakRssMb, 0)}; ${fixed(c.peakTreeRssMb, 0)}`]);
  return rows;
}
