import v8 from 'node:v8';

/**
 * V8 settings every Kura process runs with, set before it makes its first request.
 *
 * undici parses HTTP with llhttp compiled to WebAssembly, and V8 recompiles llhttp with TurboFan
 * as soon as it has run a little. That compile costs about 0.1 CPU s on a background thread in a
 * process's first seconds of fetching, which is a fifth of a lone 60 s capture's recording.
 * Measured on this machine (120 undici requests of 400 KB bodies, CPU per process):
 * - default: 0.31–0.38 s;
 * - tier-up after a thousand times the work: 0.23–0.24 s;
 * - 3,000 requests back to back: 2.1–2.3 s either way.
 * So llhttp now tiers up only once a process has parsed a great deal (many captures at once).
 * `--no-wasm-tier-up` has no effect under dynamic tiering; `--liftoff-only` is a testing flag.
 */
export function tuneV8(): void {
  v8.setFlagsFromString('--wasm-tiering-budget=1800000000');
}
