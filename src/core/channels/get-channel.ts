// Decisions: docs/decisions/0008-channels-listed-and-ordered.md
import { AppError } from '../errors.js';
import { isListed, type ChannelSummary } from './channel.js';
import type { ChannelRepo } from './ports.js';

/** One listed channel's summary. Throws `channel_not_found` for a channel with no archive, nothing queued and no follow. */
export async function getChannel(deps: { channels: ChannelRepo }, channelId: string): Promise<ChannelSummary> {
  const channel = await deps.channels.find(channelId);
  if (channel === null || !isListed(channel)) {
    throw new AppError('not_found', 'channel_not_found', `No channel with the id "${channelId}" has an archive, a queued stream or a follow here.`);
  }
  return channel;
}
