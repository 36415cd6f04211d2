// Decisions: docs/decisions/0081-what-runs-when-idle.md
import type { Command } from './command.js';
import { USAGES } from './usage.js';

/**
 * Every `kura` command by its name, in the order `kura help` lists them: each module is loaded
 * when its command runs, so a command loads only what it uses (`kura archive` not the server,
 * `kura help` nothing).
 */
export const COMMANDS: ReadonlyMap<string, () => Promise<Command>> = new Map([
  ['serve', async () => (await import('./serve-command.js')).serveCommand],
  ['migrate', async () => (await import('./migrate-command.js')).migrateCommand],
  ['import', async () => (await import('./import-command.js')).importCommand],
  ['archive', async () => (await import('./archive-command.js')).archiveCommand],
  ['user', async () => (await import('./account-commands.js')).userCommand],
  ['token', async () => (await import('./account-commands.js')).tokenCommand],
  ['follow', async () => (await import('./follow-command.js')).followCommand],
  ['webhook', async () => (await import('./webhook-command.js')).webhookCommand],
  ['search', async () => (await import('./search-command.js')).searchCommand],
  ['verify', async () => (await import('./verify-command.js')).verifyCommand],
  ['retention', async () => (await import('./retention-command.js')).retentionCommand],
  ['doctor', async () => (await import('./doctor-command.js')).doctorCommand],
]);

/** Commands whose work may take minutes: V8 optimizes their code (the others answer in a moment, see cli/v8-tuning.ts). */
export const LONG_RUNNING = new Set(['serve', 'import', 'verify', 'search']);

/** What `kura help` prints (and an unknown command, after its complaint). */
export const USAGE = `Usage: kura <command>

Commands:
${Object.values(USAGES).join('\n')}
  help           show this text

Configuration comes from the environment and .env; see .env.example.`;
