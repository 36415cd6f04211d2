import type { NamedRules, RetentionCandidate } from './plan-retention.js';
import type { RetentionRepo } from './ports.js';

/** What a plan weighs: every finished record and every follow's and channel's rule set, read at once. */
export async function readRetentionInputs(deps: {
  retention: RetentionRepo;
}): Promise<{ candidates: RetentionCandidate[]; sets: { follows: Map<string, NamedRules>; channels: Map<string, NamedRules> } }> {
  const [candidates, sets] = await Promise.all([deps.retention.candidates(), deps.retention.ruleSets()]);
  return { candidates, sets };
}
