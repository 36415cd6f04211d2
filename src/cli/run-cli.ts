// Decisions: docs/decisions/0114-every-command-runs-from-a-bundle.md
import { ConfigError, loadConfig } from '../config/config.js';
import { AppError } from '../core/errors.js';
import { MigrationError, versionLine } from '../wiring/release.js';
import { escapeLines, shown } from './terminal-text.js';
import type { Command } from './command.js';
import { USAGE } from './usage.js';

/** The commands one entry (cli/brief.ts or cli/long.ts) runs, by their name. */
export type Commands = ReadonlyMap<string, () => Promise<Command>>;

/**
 * Runs the command `argv` names, one of `commands`, with the configuration read, then exits with
 * its code; turns what it throws into a message and an exit code. Exit codes: 0 done, 1 failed,
 * 2 bad configuration or usage, or a database this release cannot run on (a migration failed, a newer release migrated it).
 */
export function runCli(commands: Commands, argv: string[]): void {
  main(commands, argv).then(
    (code) => process.exit(code),
    (error: unknown) => process.exit(reportFailure(error)),
  );
}

async function main(commands: Commands, argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    console.log(USAGE);
    return name === undefined ? 2 : 0;
  }
  if (name === 'version' || name === '--version' || name === '-V') {
    console.log(versionLine());
    return 0;
  }
  const load = commands.get(name);
  if (load === undefined) {
    console.error(`${shown`kura: unknown command "${name}"`}\n\n${USAGE}`);
    return 2;
  }
  const command = await load();
  const refused = command.refuse?.(args) ?? null;
  if (refused !== null) {
    console.error(`kura: ${refused}`);
    return 2;
  }
  return command.run(loadConfig(), args);
}

/** What a command threw, said in one line or a list: 2 for a bad configuration, 1 for anything else. */
function reportFailure(error: unknown): number {
  if (error instanceof ConfigError && error.problems.length === 1) {
    console.error(shown`kura: cannot start: ${error.problems[0]}`);
    return 2;
  }
  if (error instanceof ConfigError) {
    console.error(`kura: cannot start, the configuration has problems:\n${error.problems.map((p) => shown`  - ${p}`).join('\n')}`);
    return 2;
  }
  if (error instanceof MigrationError) {
    console.error(shown`kura: cannot start: ${error.message}`);
    return 2;
  }
  if (error instanceof AppError) {
    console.error(`kura: ${escapeLines(error.detail)}`);
    return 1;
  }
  console.error(shown`kura: ${(error as Error).message ?? error}`);
  if ((error as Error).cause) console.error(shown`  cause: ${String((error as Error).cause)}`);
  return 1;
}
