import { LONG_COMMANDS } from './long-commands.js';
import { runCli } from './run-cli.js';

// The commands of cli/long-commands.ts: bundled into dist/bundle/long.js, which dist/src/cli.js runs.
runCli(LONG_COMMANDS, process.argv.slice(2));
