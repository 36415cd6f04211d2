// Decisions: docs/decisions/0008-channels-listed-and-ordered.md
import { HISTORY_MAX_LIMIT } from '../records/list-history.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { ChannelSummary } from './channel.js';
import type { ChannelRepo } from './ports.js';

export interface ChannelPage {
  channels: ChannelSummary[];
  total: number;
  hasMore: boolean;
}

/**
 * One page of the channels with an archive, a queued stream or a follow: latest archive first,
 * then those with only queued streams, then the followed channels with no record yet; paged like
 * the history (`limit` above HISTORY_MAX_LIMIT is clamped). The channels with records are counted
 * by a maintained aggregate (the instance's unique channels), the followed-only ones from the follows.
 */
export async function listChannels(
  deps: { channels: ChannelRepo; livestreams: LivestreamRepo },
  request: { page: number; limit: number },
): Promise<ChannelPage> {
  const limit = Math.min(request.limit, HISTORY_MAX_LIMIT);
  const offset = request.page * limit;
  const [{ uniqueChannels: withRecords }, followedOnly] = await Promise.all([deps.livestreams.totals(), deps.channels.countFollowedOnly()]);
  const total = withRecords + followedOnly;
  const channels = offset >= withRecords ? [] : await deps.channels.list(offset, limit);
  const room = limit - channels.length;
  if (room > 0 && offset + channels.length < total) {
    channels.push(...(await deps.channels.listFollowedOnly(Math.max(0, offset - withRecords), room)));
  }
  return { channels, total, hasMore: offset + limit < total };
}
