// Decisions: docs/decisions/0069-cli-output-and-arguments.md
/**
 * Characters that would act on the operator's terminal instead of being shown: C0 and C1 controls
 * (ESC starts escape sequences, BEL rings, CR rewrites the line) and the bidirectional controls
 * that reorder what follows them (U+202E shows a name backwards). Names reach the CLI from admins
 * and from YouTube through yt-dlp, so none is printed raw.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is what this is for
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** `text` with every control character written as an escape (`\u001b`, `\t`), visible and inert. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A tagged template for what the CLI prints: the literal text as written, every value escaped. */
export function shown(strings: TemplateStringsArray, ...values: unknown[]): string {
  return strings.reduce((text, literal, i) => text + (i === 0 ? '' : escapeControls(String(values[i - 1]))) + literal, '');
}

/** One tab-separated line of a listing, each cell escaped (a tab or newline in a value cannot shift the columns). */
export function row(cells: readonly string[]): string {
  return cells.map(escapeControls).join('\t');
}

/** A text of several lines (an error's detail), each line escaped. */
export function escapeLines(text: string): string {
  return text.split('\n').map(escapeControls).join('\n');
}
