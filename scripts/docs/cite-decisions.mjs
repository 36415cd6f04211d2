#!/usr/bin/env node
// Writes, at the top of every file a decision record governs, one comment naming its records
// ("Decisions: docs/decisions/0007-….md, …"), and removes that comment from files no record
// governs any more. Run it after editing a record's Governs list; test/unit/decision-records.test.ts
// fails until the two agree. Migrations are left as they are: they are checksummed once applied.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { decisionRecords, isCitable, CITATION } from './decision-records.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const citations = new Map();
for (const record of decisionRecords(root)) {
  for (const governed of record.governs) {
    if (!isCitable(governed)) continue;
    citations.set(governed, [...(citations.get(governed) ?? []), record.path]);
  }
}

const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(isCitable);
let changed = 0;
for (const file of new Set([...tracked, ...citations.keys()])) {
  const full = path.join(root, file);
  if (!existsSync(full)) continue;
  const text = readFileSync(full, 'utf8');
  const lines = text.split('\n');
  const kept = lines.filter((line) => !CITATION.test(line));
  const records = citations.get(file);
  if (records) {
    const at = kept[0]?.startsWith('#!') ? 1 : 0;
    kept.splice(at, 0, commentFor(file, `Decisions: ${records.join(', ')}`));
  }
  const next = kept.join('\n');
  if (next !== text) {
    writeFileSync(full, next);
    changed += 1;
  }
}
console.log(`${changed} file(s) changed`);

function commentFor(file, words) {
  if (file.endsWith('.svelte')) return `<!-- ${words} -->`;
  if (file.endsWith('.sql')) return `-- ${words}`;
  if (file.endsWith('.css')) return `/* ${words} */`;
  return `// ${words}`;
}
