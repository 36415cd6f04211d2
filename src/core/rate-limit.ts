// Decisions: docs/decisions/0015-limits-count-first.md, docs/decisions/0017-login-limits.md
import { AppError } from './errors.js';

// Rate limits are shared by every domain (logins, submissions, webhooks, follows), so their port
// lives here rather than in one domain's ports.ts.

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

/** A rate-limit window as a counter answers it: `hits` counted in the current window (after `hit`, with that one). */
export interface RateLimitState {
  allowed: boolean;
  retryAfterSeconds: number;
  hits: number;
}

/** Counters shared by every api process (PostgreSQL), per bucket and key. */
export interface RateLimiter {
  /** Counts one hit; `allowed` is false once the window holds more than `limit`. */
  hit(bucket: string, key: string, rule: RateLimit): Promise<RateLimitState>;
  /** Whether one more hit would still be allowed, without counting. */
  peek(bucket: string, key: string, rule: RateLimit): Promise<RateLimitState>;
  /** Gives one hit of the current window back (an attempt counted before it turned out fine). */
  refund(bucket: string, key: string): Promise<void>;
  reset(bucket: string, key: string): Promise<void>;
}

/** "10 a minute", "20 an hour": a rule in words, for a refusal's detail. */
export function describeRate(rule: RateLimit): string {
  const { limit, windowSeconds } = rule;
  if (windowSeconds === 60) return `${limit} a minute`;
  if (windowSeconds === 3600) return `${limit} an hour`;
  return `${limit} per ${windowSeconds} s`;
}

/**
 * Counts one attempt before the work it guards (atomically, so a parallel burst cannot pass the
 * limit) and refuses it past `rule`: `what` names the attempts in the refusal ("test events to this
 * webhook"). Throws `too_many_requests` (rate_limited, with Retry-After).
 */
export async function countAttempt(deps: { rateLimiter: RateLimiter }, bucket: string, key: string, rule: RateLimit, what: string): Promise<void> {
  const state = await deps.rateLimiter.hit(bucket, key, rule);
  if (state.allowed) return;
  throw new AppError(
    'rate_limited',
    'too_many_requests',
    `Too many ${what}: at most ${describeRate(rule)}; try again in ${state.retryAfterSeconds} s.`,
    state.retryAfterSeconds,
  );
}
