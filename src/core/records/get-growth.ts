// Decisions: docs/decisions/0006-history-queue-and-stats.md
import type { GrowthMonth, LivestreamRepo } from './ports.js';

export interface GrowthPoint extends GrowthMonth {
  /** Running totals up to and including this month. */
  totalCount: number;
  totalFileSizeBytes: number;
}

/** The archive's growth: finished records per month of their scheduled start, with running totals. */
export async function getGrowth(deps: { livestreams: LivestreamRepo }): Promise<GrowthPoint[]> {
  const months = await deps.livestreams.growth();
  let totalCount = 0;
  let totalFileSizeBytes = 0;
  return months.map((month) => {
    totalCount += month.count;
    totalFileSizeBytes += month.fileSizeBytes;
    return { ...month, totalCount, totalFileSizeBytes };
  });
}
