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
});
