// Decisions: docs/decisions/0028-database-outages.md
/**
 * Passes on the first call and then at most one every `everyMs`, saying how many were held back:
 * a database that stays away is logged at intervals, not at every poll.
 */
export function throttled<T extends unknown[]>(everyMs: number, write: (suppressed: number, ...args: T) => void): (...args: T) => void {
  let last = -Infinity;
  let suppressed = 0;
  return (...args: T) => {
    const now = Date.now();
    if (now - last < everyMs) {
      suppressed += 1;
      return;
    }
    last = now;
    write(suppressed, ...args);
    suppressed = 0;
  };
}
