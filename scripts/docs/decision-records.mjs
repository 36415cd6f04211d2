// Reads docs/decisions/: each record's number, path, status and the files it governs.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A file's citation comment line, in any of the comment styles cite-decisions writes. */
export const CITATION = /^(\/\/|--|<!--|\/\*) Decisions: docs\/decisions\/\d{4}-/;

/** Files that carry a citation: code, tests, scripts, styles; not migrations (checksummed once applied) nor Markdown. */
export function isCitable(file) {
  return /\.(ts|js|mjs|svelte|css)$/.test(file) && !file.startsWith('migrations/');
}

/** Every record under docs/decisions, in number order. */
export function decisionRecords(root) {
  const dir = path.join(root, 'docs', 'decisions');
  return readdirSync(dir)
    .filter((name) => /^\d{4}-.+\.md$/.test(name))
    .sort()
    .map((name) => {
      const text = readFileSync(path.join(dir, name), 'utf8');
      const governsBlock = /^Governs:\n((?:- .+\n)+)/m.exec(text)?.[1] ?? '';
      return {
        number: name.slice(0, 4),
        name,
        path: `docs/decisions/${name}`,
        text,
        status: /^Status: (.+)$/m.exec(text)?.[1] ?? '',
        governs: [...governsBlock.matchAll(/^- `([^`]+)`/gm)].map((m) => m[1]),
      };
    });
}
