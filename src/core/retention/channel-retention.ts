import { requireAdmin, submitterOf, type Caller } from '../accounts/account.js';
import type { RetentionRepo } from './ports.js';
import { changeRules, NO_LIMITS, type RetentionChange, type RetentionRules } from './retention-rules.js';

/** A channel's retention rules (no limit when none are set). Throws `admin_only`. */
export async function getChannelRetention(deps: { retention: RetentionRepo }, request: { caller: Caller; channelId: string }): Promise<RetentionRules> {
  requireAdmin(request.caller);
  return (await deps.retention.channelRules(request.channelId)) ?? NO_LIMITS;
}

/** An admin changes a channel's retention rules (a null limit clears it). Throws `admin_only`, `invalid_retention`. */
export async function setChannelRetention(
  deps: { retention: RetentionRepo },
  request: { caller: Caller; channelId: string; change: RetentionChange; now: Date },
): Promise<RetentionRules> {
  requireAdmin(request.caller);
  const rules = changeRules((await deps.retention.channelRules(request.channelId)) ?? NO_LIMITS, request.change);
  await deps.retention.setChannelRules(request.channelId, rules, { admin: submitterOf(request.caller.user), at: request.now });
  return rules;
}
