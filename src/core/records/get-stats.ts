// Decisions: docs/decisions/0006-history-queue-and-stats.md
import type { LivestreamRepo } from './ports.js';

export interface InstanceStats {
  videoAmount: number;
  totalFileSize: number;
  totalLength: number;
  storageBillPerMonth: number;
  usdPerGbPerMonth: number;
  uniqueChannels: number;
}

/** Instance totals from maintained aggregates (never a scan); the bill is size in GB (10^9 bytes) × price. */
export async function getStats(deps: { livestreams: LivestreamRepo }, pricing: { usdPerGbPerMonth: number }): Promise<InstanceStats> {
  const totals = await deps.livestreams.totals();
  return {
    videoAmount: totals.counted,
    totalFileSize: totals.totalFileSizeBytes,
    totalLength: totals.totalLengthSeconds,
    storageBillPerMonth: (totals.totalFileSizeBytes / 1e9) * pricing.usdPerGbPerMonth,
    usdPerGbPerMonth: pricing.usdPerGbPerMonth,
    uniqueChannels: totals.uniqueChannels,
  };
}
