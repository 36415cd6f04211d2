#!/usr/bin/env node
// Decisions: docs/decisions/0025-process-roles-and-composition-root.md, docs/decisions/0033-v8-tuning.md
import { COMMANDS, LONG_RUNNING, USAGE } from './cli/commands.js';
import { escapeLines, shown } from './wiring/terminal-text.js';
import { tuneV8 } from './cli/v8-tuning.js';
import { ConfigError, loadConfig } from './config/config.js';
import { AppError } from './core/errors.js';

/*
 * The `kura` command: picks the command (one module each under cli/, listed in cli/commands.ts),
 * reads the configuration and runs it, and turns what it throws into a message and an exit code.
 */

/** Exit codes: 0 done, 1 failed, 2 bad configuration or usage. */
async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    console.log(USAGE);
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS.get(name);
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
  if (error instanceof AppError) {
    console.error(`kura: ${escapeLines(error.detail)}`);
    return 1;
  }
  console.error(shown`kura: ${(error as Error).message ?? error}`);
  if ((error as Error).cause) console.error(shown`  cause: ${String((error as Error).cause)}`);
  return 1;
}

tuneV8(LONG_RUNNING.has(process.argv[2] ?? '') ? 'long' : 'brief');
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => process.exit(reportFailure(error)),
);
