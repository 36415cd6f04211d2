import type { RetentionChange } from '../../core/retention/retention-rules.js';

type Limits = { keepLast?: number | null; maxAgeDays?: number | null; maxGb?: number | null };

/** The retention limits a body gives (left out: unchanged), and the rest of the body; no limit given: undefined. */
export function splitRetention<B extends Limits>(body: B): { retention: RetentionChange | undefined; rest: Omit<B, keyof Limits> } {
  const { keepLast, maxAgeDays, maxGb, ...rest } = body;
  const retention: RetentionChange = {};
  if (keepLast !== undefined) retention.keepLast = keepLast;
  if (maxAgeDays !== undefined) retention.maxAgeDays = maxAgeDays;
  if (maxGb !== undefined) retention.maxGb = maxGb;
  return { retention: Object.keys(retention).length === 0 ? undefined : retention, rest };
}
