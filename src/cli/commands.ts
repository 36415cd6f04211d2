import { archiveCommand } from './archive-command.js';
import { tokenCommand, userCommand } from './account-commands.js';
import type { Command } from './command.js';
import { doctorCommand } from './doctor-command.js';
import { followCommand } from './follow-command.js';
import { importCommand } from './import-command.js';
import { migrateCommand } from './migrate-command.js';
import { searchCommand } from './search-command.js';
import { serveCommand } from './serve-command.js';
import { verifyCommand } from './verify-command.js';
import { retentionCommand } from './retention-command.js';
import { webhookCommand } from './webhook-command.js';

/** Every `kura` command by its name, in the order `kura help` lists them. */
export const COMMANDS: ReadonlyMap<string, Command> = new Map([
  ['serve', serveCommand],
  ['migrate', migrateCommand],
  ['import', importCommand],
  ['archive', archiveCommand],
  ['user', userCommand],
  ['token', tokenCommand],
  ['follow', followCommand],
  ['webhook', webhookCommand],
  ['search', searchCommand],
  ['verify', verifyCommand],
  ['retention', retentionCommand],
  ['doctor', doctorCommand],
]);

/** What `kura help` prints (and an unknown command, after its complaint). */
export const USAGE = `Usage: kura <command>

Commands:
${[...COMMANDS.values()].map((command) => command.usage).join('\n')}
  help           show this text

Configuration comes from the environment and .env; see .env.example.`;
