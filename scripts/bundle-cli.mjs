// Decisions: docs/decisions/0114-every-command-runs-from-a-bundle.md
// Bundles every `kura` command into dist/bundle/: the brief ones (dist/src/cli/brief.js, compiled
// by tsc) and the long ones (dist/src/cli/long.js), with the threads' entries and every module and
// package they import: brief.js, long.js, worker-thread.js, search-thread.js, and files of the
// parts they share or only some commands load. dist/src/cli.js runs one of the two.
// Left out, found at run time in node_modules as before: what is loaded by a name built at run
// time (the embedded PostgreSQL's programs) or through createRequire (pino-pretty).
import { rmSync } from 'node:fs';
import { build } from 'rolldown';

const OUT = 'dist/bundle';

/**
 * pg (lib/stream.js) asks on load whether it runs in a Cloudflare Worker: on Node 20, which has
 * no `navigator`, by making a `Response`, which loads Node's own fetch (undici) for nothing. Kura
 * runs on Node only, so the bundle skips the question; a pg that asks it differently fails the build.
 */
const pgOnNode = {
  name: 'pg-on-node',
  transform: {
    filter: { id: /node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ },
    handler(code) {
      const question = 'if (isCloudflareRuntime())';
      if (!code.includes(question)) this.error(`pg/lib/stream.js no longer says "${question}": see scripts/bundle-cli.mjs`);
      return code.replace(question, 'if (false)');
    },
  },
};

const UNDICI_CORE = '\0undici-core';
const undiciCore = {
  name: 'undici-core',
  resolveId(id, importer) {
    if (id === 'undici' && importer?.endsWith('outbound-client.js')) return UNDICI_CORE;
    return null;
  },
  load(id) {
    if (id !== UNDICI_CORE) return null;
    return `
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';
Object.assign(Dispatcher.prototype, api);
export { Agent };
// undici's own request() as outbound-client.ts calls it; an instance method refuses opts.dispatcher (undici 8)
export function request(url, { dispatcher, ...opts }) {
  return dispatcher.request({ ...opts, origin: url.origin, path: url.pathname + url.search, method: opts.method ?? (opts.body ? 'PUT' : 'GET') });
}
`;
  },
};

rmSync(OUT, { recursive: true, force: true });
await build({
  input: {
    brief: 'dist/src/cli/brief.js',
    long: 'dist/src/cli/long.js',
    // the threads' entries, named as the modules that start them name them (new URL beside them)
    'worker-thread': 'dist/src/worker-thread.js',
    'search-thread': 'dist/src/adapters/search/search-thread.js',
  },
  platform: 'node',
  logLevel: 'warn',
  plugins: [pgOnNode, undiciCore],
  output: { dir: OUT, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
});
