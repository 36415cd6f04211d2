// Decisions: docs/decisions/0114-every-command-runs-from-a-bundle.md
/**
 * The entry file of the worker thread of `kura serve` (src/worker-thread.ts). It is named from
 * here, a module beside it, so the name holds both in dist/src and in dist/bundle, where
 * scripts/bundle-cli.mjs puts every module of a long command in one folder.
 */
export const WORKER_THREAD_FILE = new URL('./worker-thread.js', import.meta.url);
