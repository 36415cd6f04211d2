import { HISTORY_MAX_LIMIT } from '../livestream/list-history.js';
import type { LivestreamRepo } from '../livestream/ports.js';
import type { ChannelSummary } from './channel.js';
import type { ChannelRepo } from './ports.js';

export interface ChannelPage {
  channels: ChannelSummary[];
  total: number;
  hasMore: boolean;
}

/**
 * One page of the channels with an archive or a queued stream, latest archive first; paged like
 * the history (`limit` above HISTORY_MAX_LIMIT is clamped). The total is the instance's count of
 * unique channels, a maintained aggregate.
 */
export async function listChannels(
  deps: { channels: ChannelRepo; livestreams: LivestreamRepo },
  request: { page: number; limit: number },
): Promise<ChannelPage> {
  const limit = Math.min(request.limit, HISTORY_MAX_LIMIT);
  const offset = request.page * limit;
  const { uniqueChannels: total } = await deps.livestreams.totals();
  const channels = offset >= total ? [] : await deps.channels.list(offset, limit);
  return { channels, total, hasMore: offset + limit < total };
}
