// Decisions: docs/decisions/0106-what-runs-when-idle.md
import type { Command } from './command.js';

/**
 * Every `kura` command that answers in a moment, by its name: each module is loaded when its
 * command runs, so a command loads only what it uses (`kura archive` not the server, `kura help`
 * nothing). They run from the bundle (cli/brief.ts); the ones that may run long are in
 * long-commands.ts.
 */
export const BRIEF_COMMANDS: ReadonlyMap<string, () => Promise<Command>> = new Map([
  ['migrate', async () => (await import('./migrate-command.js')).migrateCommand],
  ['archive', async () => (await import('./archive-command.js')).archiveCommand],
  ['user', async () => (await import('./account-commands.js')).userCommand],
  ['token', async () => (await import('./account-commands.js')).tokenCommand],
  ['follow', async () => (await import('./follow-command.js')).followCommand],
  ['webhook', async () => (await import('./webhook-command.js')).webhookCommand],
  ['retention', async () => (await import('./retention-command.js')).retentionCommand],
  ['doctor', async () => (await import('./doctor-command.js')).doctorCommand],
]);
