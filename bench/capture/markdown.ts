// Markdown for bench/RESULTS.md: tables, and each target's verdict beside its measured value.
import type { Spread } from './bare-ffmpeg.js';
import { total, type Cost } from './phases.js';

export function table(header: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** `n` to `digits` places; a sampling artefact just under zero reads 0, not -0.00. */
export const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? (Math.abs(n) < 0.5 * 10 ** -digits ? 0 : n).toFixed(digits) : '—');

/** A median with the range of its runs: `0.19 (0.18–0.20)`; a single run is just its value. */
export const fixedSpread = (s: Spread) => (s.runs === 1 ? fixed(s.median) : `${fixed(s.median)} (${fixed(s.min)}–${fixed(s.max)})`);

/** The cost's cells: total, node main thread, other threads, children, PostgreSQL. */
export const costCells = (c: Cost) => [fixed(total(c)), fixed(c.main), fixed(c.threads), fixed(c.children), fixed(c.postgres)];
export const COST_HEADER = ['CPU s', 'node main thread', 'other threads', 'children', 'PostgreSQL'];

/** A target row: what, measured, target, met or not. */
export function targetRow(what: string, measured: number, limit: number, unit: string, digits = 2): Array<string> {
  const met = Number.isFinite(measured) && measured <= limit;
  return [what, `${fixed(measured, digits)}${unit}`, `≤ ${limit}${unit}`, met ? 'met' : '**not met**'];
}

export const TARGET_HEADER = ['target', 'measured', 'target', ''];

/** A floor row: the least any build could measure, against the target; above it, no build meets it. */
export function floorRow(what: string, floor: number, limit: number, unit: string): Array<string> {
  const leaves =
    Number.isFinite(floor) && floor <= limit ? `possible: ${fixed(limit - floor)}${unit} left for everything else` : '**impossible by its own terms**';
  return [what, `${fixed(floor)}${unit}`, `≤ ${limit}${unit}`, leaves];
}

export const FLOOR_HEADER = ['target', 'floor', 'target', 'verdict'];

export function section(title: string, lines: string[]): void {
  console.log(`\n### ${title}\n`);
  for (const line of lines) console.log(line);
}
