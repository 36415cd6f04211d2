// The command line of bench/capture (see bench/capture/README.md for what each section measures).
import os from 'node:os';
import path from 'node:path';

export const SECTIONS = ['single', 'long', 'concurrent', 'idle', 'floor'] as const;
export type Section = (typeof SECTIONS)[number];

export interface Options {
  /** Length of the short stream (sections single and concurrent). */
  seconds: number;
  /** Length of the long stream (section long). */
  longSeconds: number;
  /** Captures at once in one `kura serve` on fs storage, one run per count (0: none). */
  concurrent: number[];
  /** Captures at once for the S3 variants (one process, two processes); 0 skips them. */
  s3Concurrent: number;
  /**
   * The most captures at once beside which bare ffmpeg and streamlink record too: three recorders a
   * stream overload 2 cores at 100 (their captures start late and miss what left the window).
   */
  baselinesUpTo: number;
  sections: Section[];
  /** Where V8 CPU profiles of the kura processes go, one folder per run. */
  profileDir: string | null;
  /** Where encoded streams are kept between runs. */
  cacheDir: string;
  /** Target length of the streams' segments, in seconds. */
  segmentSeconds: number;
  /** Segments a live playlist lists (a sliding window, as a live CDN's). */
  window: number;
  /** Idle section: seconds after start-up before sampling, and seconds sampled. */
  idleSettle: number;
  idleSeconds: number;
  /** Captures at once the server records between its first capture and the warm one (0: the warm one is its second). */
  warmUp: number;
  /** Repeats of each baseline whose median is taken: bare live recordings (at once, beside Kura's), floor steps, bare remuxes. */
  bareRuns: number;
  /** Seconds the single section samples the idle server before each capture (its idle load). */
  idleBefore: number;
}

const USAGE = `Usage: npm run build && npm run bench:capture -- [options]
  --seconds 60          short stream (single, concurrent)
  --long-seconds 600    long stream (long)
  --concurrent 100      captures at once in one kura serve (fs); a list runs each: 100,60,40; 0 skips
  --s3-concurrent 0     captures at once on S3 in one process and in two processes; 0 skips
  --baselines-up-to 20  bare ffmpeg and streamlink record beside Kura's captures (one each per capture) only up to this many
  --only LIST           sections to run: ${SECTIONS.join(',')}
  --segment-seconds 1   target length of the streams' segments (a keyframe every second whatever it is)
  --window 15           segments in the live playlist's sliding window
  --idle-settle 60      seconds between start-up and the idle sample
  --idle-seconds 60     seconds sampled idle
  --warm-up 5           captures at once the single section's server records before its warm capture (0: the warm one is its second)
  --bare-runs 5         repeats of each baseline, whose median counts (live ones run at once)
  --idle-before 10      seconds the single section samples the idle server before each capture
  --profile DIR         write V8 CPU profiles of the kura processes under DIR
  --cache DIR           encoded streams (default $XDG_CACHE_HOME/kura-bench/capture)`;

export function parseOptions(argv: string[]): Options {
  const given = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i] as string, argv[i + 1]];
    if (name === '--help' || name === '-h') exit(USAGE, 0);
    if (!name.startsWith('--') || value === undefined) exit(`bench/capture: ${name} needs a value\n${USAGE}`, 2);
    given.set(name.slice(2), value as string);
  }
  const number = (name: string, fallback: number) => {
    const value = Number(given.get(name) ?? fallback);
    if (!Number.isFinite(value) || value < 0) exit(`bench/capture: --${name} must be a number ≥ 0`, 2);
    return value;
  };
  const sections = (given.get('only') ?? SECTIONS.join(',')).split(',').map((s) => s.trim());
  const unknown = sections.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (unknown.length > 0) exit(`bench/capture: unknown section ${unknown.join(', ')} (sections: ${SECTIONS.join(', ')})`, 2);
  const options: Options = {
    seconds: number('seconds', 60),
    longSeconds: number('long-seconds', 600),
    concurrent: (given.get('concurrent') ?? '100')
      .split(',')
      .map(Number)
      .filter((n) => n > 0),
    s3Concurrent: number('s3-concurrent', 0),
    baselinesUpTo: number('baselines-up-to', 20),
    sections: sections as Section[],
    profileDir: given.has('profile') ? path.resolve(given.get('profile') as string) : null,
    cacheDir: path.resolve(given.get('cache') ?? defaultCacheDir()),
    segmentSeconds: Math.max(1, number('segment-seconds', 1)),
    window: number('window', 15),
    idleSettle: number('idle-settle', 60),
    idleSeconds: number('idle-seconds', 60),
    warmUp: number('warm-up', 5),
    bareRuns: Math.max(1, number('bare-runs', 5)),
    idleBefore: Math.max(1, number('idle-before', 10)),
  };
  const known = new Set([
    'seconds',
    'long-seconds',
    'concurrent',
    's3-concurrent',
    'baselines-up-to',
    'only',
    'profile',
    'cache',
    'segment-seconds',
    'window',
    'idle-settle',
    'idle-seconds',
    'warm-up',
    'bare-runs',
    'idle-before',
  ]);
  for (const name of given.keys()) if (!known.has(name)) exit(`bench/capture: unknown option --${name}\n${USAGE}`, 2);
  return options;
}

function exit(message: string, code: number): never {
  (code === 0 ? console.log : console.error)(message);
  process.exit(code);
}

/** Where encoded streams are kept between runs (`--cache`): `$XDG_CACHE_HOME/kura-bench/capture`. */
export function defaultCacheDir(): string {
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'kura-bench', 'capture');
}
