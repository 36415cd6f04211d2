import type { ChannelSummary } from '../../core/channels/channel.js';
import type { Channel } from './channels.schema.js';

/** A channel as GET /api/channels and /api/channels/{channelId} show it. */
export function presentChannel(channel: ChannelSummary): Channel {
  const latest = channel.latestArchive;
  return {
    channelId: channel.channelId,
    channelName: channel.channelName,
    archives: channel.archives,
    upcoming: channel.upcoming,
    totalFileSize: channel.totalFileSizeBytes,
    totalLength: channel.totalLengthSeconds,
    latestArchive: latest === null ? null : { id: latest.id, title: latest.title, scheduledStart: latest.scheduledStart.toISOString() },
    followed: channel.followed,
  };
}
