// Decisions: docs/decisions/0114-every-command-runs-from-a-bundle.md
import type { Command } from './command.js';

/**
 * The `kura` commands whose work may take minutes, by their name: V8 optimizes their code (the
 * others answer in a moment, see cli/v8-tuning.ts); they run from dist/bundle/long.js, the brief
 * ones (cli/brief-commands.ts) from dist/bundle/brief.js.
 */
export const LONG_COMMANDS: ReadonlyMap<string, () => Promise<Command>> = new Map([
  ['serve', async () => (await import('./serve-command.js')).serveCommand],
  ['import', async () => (await import('./import-command.js')).importCommand],
  ['verify', async () => (await import('./verify-command.js')).verifyCommand],
  ['clip', async () => (await import('./clip-command.js')).clipCommand],
  ['search', async () => (await import('./search-command.js')).searchCommand],
  ['backup', async () => (await import('./backup-command.js')).backupCommand],
  ['restore', async () => (await import('./backup-command.js')).restoreCommand],
]);
