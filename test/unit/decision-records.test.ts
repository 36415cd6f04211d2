import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CITATION, decisionRecords, isCitable } from '../../scripts/docs/decision-records.mjs';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';

// docs/decisions holds one record per decision; each names the files it governs, and each of those
// files names it back (scripts/docs/cite-decisions.mjs writes those comments).
const root = readPackageInfo().root;
const records = decisionRecords(root);
const byPath = new Map(records.map((record) => [record.path, record]));

// A record states targets and limits ("at most 500", "every 5 s", "a default of 30 s"), never what
// was measured on a machine: those figures are in bench/RESULTS.md (docs/decisions/README.md, "No
// measurements in records"). Refused, outside `code` and link targets:
// - a number with a unit of measure (ms, s, µs, MB, GB, kB, %, ×, CPU, ms/s) unless a limit word
//   comes within the four words before it (at most, up to, within, every, after, default, …), a
//   limit noun right after it ("a 60 s lease", "5 s doubling"), or it continues a list whose
//   previous figure was allowed ("at most 0.25 CPU s and 1 s");
// - "measured", "took", "peaked at" or "came to" followed within four words by a number;
// - p50, p95, p99 or median followed within three words by a figure;
// - a before → after pair of numbers.
// Sizes in binary units (KiB, MiB) are what Kura sets, not what it measured, and are not checked.
const FIGURE = /(\d[\d.,]*(?:\s?[–-]\s?\d[\d.,]*)?)\s?(ms\/s|ms|µs|s|MB|GB|kB|%|×|CPU)(?![\w/])/g;
const LIMIT_BEFORE =
  /\b(at most|at least|up to|under|over|within|every|after|for|until|(?<!at )once|default|limit|capped|cap|bounded|bounds|allows|target|than|each|per|below|above|lease|backoff|doubling|waits?|waiting|schedule)\b|[≤≥<>±]/i;
const LIMIT_AFTER = /^\s*\)?\s*(time-?out|lease|window|limit|doubling|apart|ahead|kept|by default|between|for|after|clock|target|in|into|capture|stream)\b/i;
const MEASURED = [
  /\b(?:measured|took|peaked at|came to)\s+(?:\S+\s+){0,3}?\d/gi,
  /\b(?:p50|p90|p95|p99|median)\b(?:\s+\S+){0,2}?\s+\d[\d.,]*\s?(?:ms|s|MB|%)/gi,
  /\d[\d.,]*\s?(?:[A-Za-z]+\s)?→\s?\d/g,
];

/** The figures a record's text holds that read as measurements, each with the words before it. */
function measurementsIn(text: string): string[] {
  const body = text.slice(text.indexOf('\n## Context\n'));
  const plain = body
    .replace(/`[^`]*`/g, 'CODE')
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/\n(?![-#\n])\s*/g, ' ');
  const found: string[] = [];
  let allowedEnd = -Infinity;
  for (const m of plain.matchAll(FIGURE)) {
    if (/^0(\.0*)?$/.test(m[1] ?? '')) continue;
    const before = plain.slice(0, m.index).trimEnd().split(/\s+/).slice(-4).join(' ');
    const after = plain.slice(m.index + m[0].length);
    const since = plain.slice(Math.max(allowedEnd, 0), m.index);
    const continuesList = allowedEnd >= 0 && since.split(/\s+/).length <= 4 && !/[.;:]/.test(since);
    if (LIMIT_BEFORE.test(before) || LIMIT_AFTER.test(after) || continuesList) allowedEnd = m.index + m[0].length;
    else found.push(`…${before} ${m[0]}`);
  }
  for (const pattern of MEASURED) for (const m of plain.matchAll(pattern)) found.push(m[0]);
  return found;
}

describe('the decision records', () => {
  it('are numbered from 0001 without a hole, each with its number in its title and the sections of a record', () => {
    expect(records.length).toBeGreaterThan(0);
    records.forEach((record, i) => {
      expect(record.number, record.name).toBe(String(i + 1).padStart(4, '0'));
      expect(record.text.startsWith(`# ${record.number}. `), record.name).toBe(true);
      expect(record.text, record.name).toMatch(/^Date: \d{4}-\d{2}-\d{2}$/m);
      for (const section of ['## Context', '## Decision', '## Consequences']) expect(record.text, `${record.name}: ${section}`).toContain(`\n${section}\n`);
    });
  });

  it('are accepted, or superseded by a record that exists and govern nothing then', () => {
    for (const record of records) {
      const superseded = /^superseded by (\d{4})$/.exec(record.status);
      if (superseded) {
        expect(
          records.some((r) => r.number === superseded[1]),
          record.name,
        ).toBe(true);
        expect(record.governs, record.name).toEqual([]);
      } else {
        expect(record.status, record.name).toBe('accepted');
        expect(record.governs.length, `${record.name} governs no file`).toBeGreaterThan(0);
      }
    }
  });

  it('govern files that exist (at most five each), and the index lists every record', () => {
    const index = readFileSync(path.join(root, 'docs', 'decisions', 'README.md'), 'utf8');
    for (const record of records) {
      expect(record.governs.length, record.name).toBeLessThanOrEqual(5);
      for (const file of record.governs) expect(existsSync(path.join(root, file)), `${record.name}: ${file}`).toBe(true);
      expect(index, record.name).toContain(`(${record.name})`);
    }
  });

  it('are cited by every file they govern, and a file cites only the records that govern it', () => {
    const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(isCitable);
    const mismatches: string[] = [];
    for (const file of files) {
      const line = readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .find((l) => CITATION.test(l));
      const cited = line ? [...line.matchAll(/docs\/decisions\/\d{4}-[\w-]+\.md/g)].map((m) => m[0]).sort() : [];
      const governing = records
        .filter((record) => record.governs.includes(file))
        .map((record) => record.path)
        .sort();
      if (cited.join() !== governing.join()) mismatches.push(`${file}: cites [${cited.join(', ')}], governed by [${governing.join(', ')}]`);
      for (const record of cited) if (!byPath.has(record)) mismatches.push(`${file}: cites ${record}, which does not exist`);
    }
    expect(mismatches, 'run node scripts/docs/cite-decisions.mjs').toEqual([]);
  });
  it('hold no measurements, unless superseded (kept as they were): figures measured on a machine are in bench/RESULTS.md', () => {
    const found = records
      .filter((record) => record.status === 'accepted')
      .flatMap((record) => measurementsIn(record.text).map((figure) => `${record.name}: ${figure}`));
    expect(found, 'move the figure to bench/RESULTS.md and link its section').toEqual([]);
  });

  it('tell a measurement from a limit', () => {
    const record = (line: string) => `# 0000. T\n\n## Context\n\n${line}\n`;
    for (const limit of [
      'at most 500 ms',
      'a 60 s time-out',
      'every 5 s',
      'a default of 30 s',
      '5 s doubling to 30 s',
      'at most 0.25 CPU s and 1 s wall',
      'below 10 % free',
    ])
      expect(measurementsIn(record(limit)), limit).toEqual([]);
    for (const figure of [
      'an idle server cost 1.5–2.5 ms/s',
      'it took 9.8 s',
      'the p99 was 120 ms',
      'memory 146 → 177 MB',
      'peaked at 308 MB',
      'costs about 1.8× the CPU',
    ])
      expect(measurementsIn(record(figure)), figure).not.toEqual([]);
  });
});
