import { requireAdmin, type Caller } from '../accounts/account.js';
import { planOf, planRetention, type RetentionPlan } from './plan-retention.js';
import { readRetentionInputs } from './read-retention-inputs.js';
import type { RetentionRepo } from './ports.js';
import type { RetentionRules } from './retention-rules.js';

/** Whose rules a preview is about: a follow's or a channel's, optionally as proposed (not saved yet). */
export type PreviewScope = { follow: string } | { channel: string };

/**
 * What a run would remove now: the whole plan, or (with a scope) the share of that follow's or
 * channel's rules, under `rules` in place of its saved ones when given. The same planner as the
 * job's. Throws `admin_only`.
 */
export async function previewRetention(
  deps: { retention: RetentionRepo },
  request: { caller: Caller; defaults: RetentionRules; now: Date; scope?: PreviewScope; rules?: RetentionRules },
): Promise<RetentionPlan> {
  requireAdmin(request.caller);
  const { candidates, sets } = await readRetentionInputs(deps);
  const { scope, rules } = request;
  if (scope === undefined) return planRetention(candidates, { defaults: request.defaults, ...sets }, request.now);
  const [kind, id, map] = 'follow' in scope ? (['follow', scope.follow, sets.follows] as const) : (['channel', scope.channel, sets.channels] as const);
  const saved = map.get(id);
  if (rules !== undefined) map.set(id, { name: saved?.name ?? `${kind} ${id}`, rules });
  const plan = planRetention(candidates, { defaults: request.defaults, ...sets }, request.now);
  const removals = plan.removals.filter((removal) => removal.scope === `${kind}/${id}`);
  return planOf(removals);
}
