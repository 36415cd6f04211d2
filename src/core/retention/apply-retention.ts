// Decisions: docs/decisions/0077-retention.md
import type { AdminActionRepo } from '../accounts/ports.js';
import type { ArchiveStore } from '../archive/ports.js';
import type { ChunkLog } from '../capture/ports.js';
import type { LivestreamRepo } from '../records/ports.js';
import { removeRecord } from '../record-actions/take-down-livestream.js';
import { planRetention, type PlannedRemoval, type RetentionPlan } from './plan-retention.js';
import type { RetentionRepo } from './ports.js';
import { readRetentionInputs } from './read-retention-inputs.js';
import type { RetentionRules } from './retention-rules.js';

/** Who retention's takedowns are by, in the audit table and on a pending takedown. */
export const RETENTION_ADMIN = 'kura/retention';

export type ApplyRetentionDeps = {
  retention: RetentionRepo;
  livestreams: LivestreamRepo;
  captures: ChunkLog;
  store: ArchiveStore;
  adminActions: AdminActionRepo;
};

/** What a run tells as it goes: each archive removed, each that could not be (the next run tries again). */
export interface RetentionEvents {
  removed(removal: PlannedRemoval): void;
  failed(id: string, error: Error): void;
}

/** The plan the rules give now (see planRetention), with every rule set read from the repository. */
export async function currentPlan(deps: Pick<ApplyRetentionDeps, 'retention'>, defaults: RetentionRules, now: Date): Promise<RetentionPlan> {
  const { candidates, sets } = await readRetentionInputs(deps);
  return planRetention(candidates, { defaults, ...sets }, now);
}

/**
 * Applies the rules through the takedown path: first the removals an earlier run marked and did
 * not finish (it died), then each planned one: a takedown noted on the record (not served from
 * then on), its files deleted, then the record with its audit row (and so its
 * `livestream.removed` event). An archive pinned or changed meanwhile is skipped. Returns what was
 * removed.
 */
export async function applyRetention(deps: ApplyRetentionDeps, defaults: RetentionRules, now: Date, events: RetentionEvents): Promise<PlannedRemoval[]> {
  const removed: PlannedRemoval[] = [];
  const remove = async (id: string, planned?: PlannedRemoval) => {
    try {
      const record = await deps.livestreams.findById(id);
      if (record === null || record.takedown === null) return;
      const done = { id, title: record.title, sizeBytes: record.archive?.fileSizeBytes ?? 0, reason: record.takedown.reason, scope: planned?.scope ?? '' };
      if (!(await removeRecord(deps, record, record.takedown))) return;
      removed.push(done);
      events.removed(done);
    } catch (error) {
      events.failed(id, error as Error);
    }
  };
  for (const id of await deps.retention.pendingRemovals(RETENTION_ADMIN)) await remove(id);
  for (const planned of (await currentPlan(deps, defaults, now)).removals) {
    if (await deps.retention.markForRemoval(planned.id, RETENTION_ADMIN, planned.reason)) await remove(planned.id, planned);
  }
  return removed;
}
