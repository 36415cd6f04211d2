// Decisions: docs/decisions/0121-backup-format.md
import type { Config } from '../config/config.js';
import { BackupError, backUpDatabase, restoreDatabase } from '../wiring/backup.js';
import { createCommandLogger } from '../wiring/logger.js';
import { parseCommandArgs } from './command-args.js';
import type { Command } from './command.js';
import { shown } from './terminal-text.js';
import { withDatabase } from './with-database.js';

const RESTORE_OPTIONS = { force: { type: 'boolean' } } as const;

/** `kura backup FILE`: a snapshot of the database (every table Kura owns) and the manifest of stored archives, while Kura runs. */
export const backupCommand: Command = {
  refuse: (args) => usage(args, {}, 'backup takes exactly one FILE'),
  run: async (config, args) => {
    const file = parseCommandArgs(args, {}).positionals[0] as string;
    return withDatabase(config, async (database) => {
      const started = Date.now();
      const summary = await backUpDatabase(database, file);
      console.log(
        shown`kura: backed up ${summary.rows} rows of ${summary.tables} tables (schema ${summary.schema}) and a manifest of ${summary.archives} stored archives to ${file} (${summary.bytes} bytes) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      return 0;
    });
  },
};

/** `kura restore FILE [--force]`: brings a backup back into an empty instance (`--force`: replaces what it holds). */
export const restoreCommand: Command = {
  refuse: (args) => usage(args, RESTORE_OPTIONS, 'restore takes exactly one FILE (and --force to replace what the instance holds)'),
  run: (config, args) => {
    const { values, positionals } = parseCommandArgs(args, RESTORE_OPTIONS);
    return runRestore(config, positionals[0] as string, values.force === true);
  },
};

async function runRestore(config: Config, file: string, force: boolean): Promise<number> {
  let restored;
  try {
    restored = await restoreDatabase(config, createCommandLogger(config), file, force);
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    console.error(shown`kura: cannot restore ${file}: ${error.message}`);
    return 1;
  }
  const { header, rows, archives, replaced, upgraded } = restored;
  const tables = header.tables.length;
  console.log(
    shown`kura: restored ${rows} rows of ${tables} tables from ${file} (taken ${header.takenAt} by Kura ${header.kuraVersion})${replaced ? ', replacing what the instance held' : ''}`,
  );
  if (upgraded.length > 0) console.log(shown`kura: then migrated to this release: ${upgraded.join(', ')}`);
  console.log(
    shown`kura: the backup lists ${archives} stored archives: they must be in this instance's store (copy them as README "Backups" says), then check them with: kura verify --all`,
  );
  return 0;
}

function usage(args: readonly string[], options: Parameters<typeof parseCommandArgs>[1], complaint: string): string | null {
  try {
    return parseCommandArgs(args, options).positionals.length === 1 ? null : complaint;
  } catch (error) {
    return (error as Error).message;
  }
}
