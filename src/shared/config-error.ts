// Decisions: docs/decisions/0068-lint-and-format.md
/**
 * Thrown when the environment holds one or more invalid values; lists every problem. Its own
 * module so that adapters can refuse a bad environment without importing the whole config.
 */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
