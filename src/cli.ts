#!/usr/bin/env node
// Decisions: docs/decisions/0033-v8-tuning.md, docs/decisions/0084-brief-commands-run-from-a-bundle.md
import { LONG_COMMANDS } from './cli/long-commands.js';
import { tuneV8 } from './cli/v8-tuning.js';

/*
 * The `kura` command: a command that may run long (cli/long-commands.ts: `serve`, …) runs from
 * the compiled modules beside this file (cli/long.ts); every other one, and `kura help`, from
 * dist/bundle/brief.js, which `npm run build` makes of cli/brief.ts and everything it imports,
 * packages too, in a few files (scripts/bundle-cli.mjs): a brief command's time is mostly loading
 * its modules, and one file costs a fraction of two hundred.
 */
const BRIEF_BUNDLE = '../bundle/brief.js';

const long = LONG_COMMANDS.has(process.argv[2] ?? '');
tuneV8(long ? 'long' : 'brief');
try {
  await import(long ? './cli/long.js' : BRIEF_BUNDLE);
} catch (error) {
  // a build left unfinished, or dist/ from before the bundle: say so in one line, not a stack trace
  console.error(`kura: cannot load its code (${(error as Error).message}); \`npm run build\` makes it`);
  process.exit(1);
}
