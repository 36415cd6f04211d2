import type { Config } from '../config/config.js';

/** One `kura` command: its lines of `kura help`, and what it does. Exit codes: 0 done, 1 failed, 2 bad usage. */
export interface Command {
  /** Its lines in the usage text, indented as they are printed. */
  usage: string;
  /** A usage problem seen before the configuration is read (exit 2 without a valid environment), or null. */
  refuse?: (args: readonly string[]) => string | null;
  run(config: Config, args: string[]): Promise<number>;
}
