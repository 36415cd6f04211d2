// Decisions: docs/decisions/0084-brief-commands-run-from-a-bundle.md
import type { Command } from './command.js';

/**
 * The `kura` commands whose work may take minutes, by their name: V8 optimizes their code (the
 * others answer in a moment, see cli/v8-tuning.ts), and they run from the compiled modules in
 * dist/src, not from the bundle of the brief commands (cli/brief-commands.ts).
 */
export const LONG_COMMANDS: ReadonlyMap<string, () => Promise<Command>> = new Map([
  ['serve', async () => (await import('./serve-command.js')).serveCommand],
  ['import', async () => (await import('./import-command.js')).importCommand],
  ['verify', async () => (await import('./verify-command.js')).verifyCommand],
  ['search', async () => (await import('./search-command.js')).searchCommand],
]);
