// Decisions: docs/decisions/0139-twitch-follows-through-helix.md
import type { IncomingHttpHeaders } from 'node:http';

/** What Twitch's last answer said of the app's request budget (its token bucket). */
export interface RateLimitState {
  /** Requests left in the bucket (`Ratelimit-Remaining`); null: not said yet. */
  remaining: number | null;
  /** When the bucket is full again (`Ratelimit-Reset`, Unix seconds), in ms. */
  resetAt: number;
}

/** The longest Kura waits for Twitch's budget before a look fails (and is tried at the next one). */
export const MAX_BUDGET_WAIT_MS = 60_000;

/**
 * The budget an answer leaves: its `Ratelimit-Remaining` and `Ratelimit-Reset` headers (Twitch's
 * API guide, "Rate limits"; twurple's HelixRateLimiter reads the same). A 429 without them spends
 * the budget for a second.
 */
export function helixRateLimit(headers: IncomingHttpHeaders, status: number, now: number): RateLimitState {
  const remaining = Number(headers['ratelimit-remaining']);
  const reset = Number(headers['ratelimit-reset']);
  if (Number.isFinite(remaining) && Number.isFinite(reset) && headers['ratelimit-remaining'] !== undefined) {
    return { remaining: status === 429 ? 0 : remaining, resetAt: reset * 1000 };
  }
  return status === 429 ? { remaining: 0, resetAt: now + 1000 } : { remaining: null, resetAt: 0 };
}

/** Waits until the budget is there again when the last answer said it was spent; throws when that is further off than MAX_BUDGET_WAIT_MS. */
export async function waitForBudget(budget: RateLimitState, now: () => number, wait: (ms: number) => Promise<unknown>): Promise<void> {
  if (budget.remaining === null || budget.remaining > 0) return;
  const ms = budget.resetAt - now();
  if (ms <= 0) return;
  if (ms > MAX_BUDGET_WAIT_MS) throw new Error(`Twitch's API budget for this application is spent until ${new Date(budget.resetAt).toISOString()}`);
  await wait(ms);
  budget.remaining = null; // full again: the next answer says how full
}
