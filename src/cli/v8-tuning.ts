// Decisions: docs/decisions/0125-v8-tuning.md
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
 *
 * The old generation may grow to three times what survived the last full collection before the
 * next one. V8 picks the factor itself (1.1–4×), and with many captures it picks about 1.5× of a
 * ~40 MB heap: less room than its young generation, so V8 starts marking again as soon as one
 * collection ends (`--trace-gc`: a mark-compact every 150–400 ms through 100 captures of a minute).
 * Measured with bench/capture's 100 concurrent 60 s captures in one `kura serve`:
 * - default: 51.4–55.7 CPU s, of which V8's helper threads 15.0–18.6 s; RSS 229–237 MB;
 * - 3×: 39.8–42.5 CPU s, helper threads 5.6–7.7 s; RSS 289–294 MB (2×: 44.6 s and 266 MB).
 * A lone capture hardly collects its old generation, so this changes nothing there.
 *
 * When a process turns quiet after allocating, V8's memory reducer runs up to three full
 * collections, half a second apart, to give memory back. In `kura serve` it first comes 16 or 24 s
 * after start (it waits in steps of 8 s for the allocation rate to drop), and with a capture just
 * begun it ran inside it. `--trace-gc` of fresh servers (bench/capture single): each reducer run
 * freed 7–18 MB of start-up garbage with its first collection and 0.1–0.5 MB with the other two;
 * the first capture read 0.89 and 0.94 CPU s with all three inside it, 0.65 with all three before
 * it, and with only the first (this setting) 0.77 inside and 0.63 before. So only the first runs
 * (`--memory-reducer-single-gc`, read each time the reducer plans; `--no-memory-reducer` is read
 * only when the heap is set up, so it does nothing at run time).
 *
 * TurboFan optimizes a function once it has run V8's interrupt budget of bytecode (67584 units).
 * A lone capture runs its code lukewarm, one segment a second, and with that budget V8 optimized
 * much of the recording path within a fresh server's first minute: its helper threads cost
 * 0.15–0.19 CPU s in the first capture (bench/capture single, three rounds), 0.06–0.07 once the
 * server had recorded a while. With four times the budget they cost 0.05–0.09 in the first capture
 * and the same in a warm one; where code is hot it still optimizes, later (100 captures at once:
 * 0.34 CPU s a capture with it and without the recent frames, 0.38 before both).
 *
 * A command that answers in a moment (`kura archive URL`, `kura follow list`, …) runs without
 * TurboFan (`--no-opt`) and Maglev, the optimizing tier V8 12 added below it (`--no-maglev`): in a process of a third of a second, optimizing compiles (on a helper
 * thread) are work whose code barely runs before the process exits. Measured, `kura archive URL`
 * next to a running server, six runs each: 0.40 CPU s by default, 0.33 with `--no-opt`, the same
 * set at run time as on the command line. Commands that may run long (`LONG_COMMANDS` in cli/long-commands.ts:
 * `serve`, `import`, `verify`, `search reindex`) keep it.
 *
 * The figures above were measured on Node 20; Node 22 and 24 run V8 12 and 13, which name two of
 * the settings differently (below).
 */
export function tuneV8(run: 'brief' | 'long'): void {
  v8.setFlagsFromString('--wasm-tiering-budget=1800000000');
  v8.setFlagsFromString('--heap-growing-percent=200');
  // `--memory-reducer-single-gc` of Node 20's V8, as V8 12 and later name it
  v8.setFlagsFromString('--memory-reducer-gc-count=1');
  // four times the default, as `--interrupt-budget=270336` was in Node 20's V8: V8 12 and later
  // count a function's invocations before TurboFan, not its bytecode run
  v8.setFlagsFromString('--invocation-count-for-turbofan=12000');
  if (run === 'brief') {
    v8.setFlagsFromString('--no-opt');
    v8.setFlagsFromString('--no-maglev');
  }
}
