// Decisions: docs/decisions/0077-retention.md
// The retention slice of the configuration (0077), parsed by src/config.ts from the environment it read.
import type { RetentionRules } from '../core/retention/retention-rules.js';

type Read = (name: string) => string | undefined;
type Numeric = (name: string, fallback: number, min: number, max: number) => number;

/**
 * The instance's default retention rules (KURA_RETENTION_KEEP_LAST, KURA_RETENTION_MAX_AGE_DAYS,
 * KURA_RETENTION_MAX_GB): a variable unset is no limit, so by default everything is kept.
 */
export function parseRetention(read: Read, integer: Numeric, decimal: Numeric): RetentionRules {
  const optional = (name: string, parse: Numeric, max: number) => (read(name) === undefined ? null : parse(name, 0, 0, max));
  return {
    keepLast: optional('KURA_RETENTION_KEEP_LAST', integer, 1_000_000),
    maxAgeDays: optional('KURA_RETENTION_MAX_AGE_DAYS', integer, 100_000),
    maxGb: optional('KURA_RETENTION_MAX_GB', decimal, 1_000_000),
  };
}
