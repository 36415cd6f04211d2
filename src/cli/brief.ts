import { BRIEF_COMMANDS } from './brief-commands.js';
import { runCli } from './run-cli.js';

// The entry of dist/bundle/brief.js (scripts/bundle-cli.mjs): `kura help`, an unknown command and
// every command of cli/brief-commands.ts.
runCli(BRIEF_COMMANDS, process.argv.slice(2));
