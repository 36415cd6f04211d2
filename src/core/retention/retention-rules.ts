import { AppError } from '../errors.js';

/** How much of a group of archives is kept; each limit optional (null: no limit). */
export interface RetentionRules {
  /** Keep the newest N archives. */
  keepLast: number | null;
  /** Keep archives younger than D days. */
  maxAgeDays: number | null;
  /** Keep at most G gigabytes (10⁹ bytes), newest first. */
  maxGb: number | null;
}

/** No limit at all: everything is kept (a follow or channel with these falls back to the next rule set). */
export const NO_LIMITS: RetentionRules = { keepLast: null, maxAgeDays: null, maxGb: null };

/** Whether any limit is set: a rule set without one does not apply (0077: the next one does). */
export function hasLimits(rules: RetentionRules): boolean {
  return rules.keepLast !== null || rules.maxAgeDays !== null || rules.maxGb !== null;
}

/** A change of rules: a limit left out stays, a null one is cleared. */
export type RetentionChange = Partial<RetentionRules>;

/** `rules` with `change` applied, each limit checked. Throws `invalid_retention`. */
export function changeRules(rules: RetentionRules, change: RetentionChange): RetentionRules {
  const next = {
    keepLast: change.keepLast === undefined ? rules.keepLast : change.keepLast,
    maxAgeDays: change.maxAgeDays === undefined ? rules.maxAgeDays : change.maxAgeDays,
    maxGb: change.maxGb === undefined ? rules.maxGb : change.maxGb,
  };
  for (const key of ['keepLast', 'maxAgeDays'] as const) {
    const value = next[key];
    if (value !== null && !(Number.isInteger(value) && value >= 0)) throw invalid(`${key} must be a whole number, 0 or more (or null: no limit).`);
  }
  if (next.maxGb !== null && !(Number.isFinite(next.maxGb) && next.maxGb >= 0)) throw invalid('maxGb must be a number, 0 or more (or null: no limit).');
  return next;
}

const invalid = (detail: string) => new AppError('invalid', 'invalid_retention', detail);

/** The rules in words: "keep the last 5, younger than 30 days, at most 100 GB"; "keep everything". */
export function describeRules(rules: RetentionRules): string {
  const parts = [
    rules.keepLast === null ? null : `the last ${rules.keepLast}`,
    rules.maxAgeDays === null ? null : `younger than ${rules.maxAgeDays} days`,
    rules.maxGb === null ? null : `at most ${rules.maxGb} GB`,
  ].filter((part) => part !== null);
  return parts.length === 0 ? 'keep everything' : `keep ${parts.join(', ')}`;
}
