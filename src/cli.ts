#!/usr/bin/env node
// Decisions: docs/decisions/0114-every-command-runs-from-a-bundle.md, docs/decisions/0124-a-supported-node-from-the-registry.md, docs/decisions/0125-v8-tuning.md
import { LONG_COMMANDS } from './cli/long-commands.js';
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

// Node 20 reached its end of life on 2026-04-30; `npm ci` installs the Node 24 Kura is tested on
// into node_modules, where `npm start`, `npx kura` and contrib/kura.service find it. The floor is
// package.json's engines.node, set by undici 8 (>=22.19.0)
const NODE_FLOOR = [22, 19] as const;
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < NODE_FLOOR[0] || (major === NODE_FLOOR[0] && minor < NODE_FLOOR[1])) {
  console.error(
    `kura: Node.js ${process.version} is not supported (too old for the packages Kura uses, or past its end of life); Kura needs Node ${NODE_FLOOR.join('.')} or newer. Run it with \`npm start\` or \`npx kura\`, which use the Node 24 \`npm ci\` put in node_modules`,
  );
  process.exit(1);
}

const long = LONG_COMMANDS.has(process.argv[2] ?? '');
tuneV8(long ? 'long' : 'brief');
try {
  await import(long ? LONG_BUNDLE : BRIEF_BUNDLE);
} catch (error) {
  // a build left unfinished, or dist/ from before the bundle: say so in one line, not a stack trace
  console.error(`kura: cannot load its code (${(error as Error).message}); \`npm run build\` makes it`);
  process.exit(1);
}
