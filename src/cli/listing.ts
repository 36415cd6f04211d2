// Decisions: docs/decisions/0069-cli-output-and-arguments.md
import { escapeControls, row } from './terminal-text.js';

/**
 * Prints a listing on stdout: a header of the column names, then a tab-separated line per item,
 * or "none" when there is none; with `json`, the items as a JSON array of objects (for scripts),
 * the controls JSON leaves raw (C1, bidirectional) escaped as `\u`: still valid JSON.
 */
export function printListing<C extends string>(columns: readonly C[], items: ReadonlyArray<Record<C, string | number | null>>, json: boolean): void {
  if (json) return void console.log(escapeControls(JSON.stringify(items)));
  if (items.length === 0) return void console.log('none');
  console.log(columns.join('\t'));
  for (const item of items) console.log(row(columns.map((column) => String(item[column] ?? '-'))));
}
