import type { Config } from '../config/config.js';

/** One `kura` command: what it does (its lines of `kura help` are in usage.ts). Exit codes: 0 done, 1 failed, 2 bad usage. */
export interface Command {
  /** A usage problem seen before the configuration is read (exit 2 without a valid environment), or null. */
  refuse?: (args: readonly string[]) => string | null;
  run(config: Config, args: string[]): Promise<number>;
}
