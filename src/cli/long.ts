import { LONG_COMMANDS } from './long-commands.js';
import { runCli } from './run-cli.js';

// The commands of cli/long-commands.ts, run from the compiled modules of dist/src.
runCli(LONG_COMMANDS, process.argv.slice(2));
