// Decisions: docs/decisions/0001-errors-are-problem-json.md
import { AppError } from '../core/errors.js';

/** How long a client is asked to wait when a disk is full: freeing space takes an operator. */
const STORAGE_FULL_RETRY_SECONDS = 60;
/** How long when PostgreSQL is short of memory or connections: a passing peak. */
const SHORT_OF_RESOURCES_RETRY_SECONDS = 5;

/** PostgreSQL's class 53 (insufficient resources), but disk_full, in words. */
const SHORT_OF: Record<string, string> = {
  '53000': 'resources',
  '53200': 'memory',
  '53300': 'connections (too many are open)',
};

/**
 * What a request that failed for want of storage or resources is answered, or null for any other
 * failure: PostgreSQL's disk is full (SQLSTATE 53100 disk_full) or the file system's (ENOSPC,
 * EDQUOT) → 503 `storage_full`; PostgreSQL is short of memory or connections (the rest of class
 * 53) → 503 `database_unavailable`. Both with a Retry-After: they pass, unlike a bug.
 */
export function resourceExhaustion(error: unknown): AppError | null {
  const code = codeOf(error) ?? codeOf((error as { cause?: unknown } | null)?.cause);
  if (code === '53100') {
    return new AppError(
      'unavailable',
      'storage_full',
      "PostgreSQL's disk is full: Kura cannot store this change now. Try again once the operator has freed space.",
      STORAGE_FULL_RETRY_SECONDS,
    );
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new AppError(
      'unavailable',
      'storage_full',
      'The disk Kura writes to is full: this change cannot be stored now. Try again once the operator has freed space.',
      STORAGE_FULL_RETRY_SECONDS,
    );
  }
  if (code !== undefined && /^53...$/.test(code)) {
    const what = SHORT_OF[code] ?? 'resources';
    return new AppError(
      'unavailable',
      'database_unavailable',
      `PostgreSQL is short of ${what} at the moment; try again shortly.`,
      SHORT_OF_RESOURCES_RETRY_SECONDS,
    );
  }
  return null;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
