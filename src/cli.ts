#!/usr/bin/env node
// Decisions: docs/decisions/0114-every-command-runs-from-a-bundle.md, docs/decisions/0125-v8-tuning.md, docs/decisions/0127-runs-on-the-node-it-brings.md
import { LONG_COMMANDS } from './cli/long-commands.js';
import { onSupportedNode, runOnBroughtNode } from './cli/supported-node.js';
import { tuneV8 } from './cli/v8-tuning.js';

/*
 * The `kura` command: a command that may run long (cli/long-commands.ts: `serve`, …) runs from
 * dist/bundle/long.js, every other one, and `kura help`, from dist/bundle/brief.js: `npm run
 * build` bundles both, with everything they import, packages too, in a few files
 * (scripts/bundle-cli.mjs). A command's start is mostly loading its modules, and one file costs a
 * fraction of hundreds (`kura serve` loads them twice, for the api's thread and the worker's).
 */
const BRIEF_BUNDLE = '../bundle/brief.js';
const LONG_BUNDLE = '../bundle/long.js';

if (onSupportedNode()) {
  const long = LONG_COMMANDS.has(process.argv[2] ?? '');
  tuneV8(long ? 'long' : 'brief');
  try {
    await import(long ? LONG_BUNDLE : BRIEF_BUNDLE);
  } catch (error) {
    // a build left unfinished, or dist/ from before the bundle: say so in one line, not a stack trace
    console.error(`kura: cannot load its code (${(error as Error).message}); \`npm run build\` makes it`);
    process.exit(1);
  }
} else {
  runOnBroughtNode();
}
