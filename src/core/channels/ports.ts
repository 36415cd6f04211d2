import type { ChannelSummary } from './channel.js';

/** Channel summaries, kept by triggers in the records' own transactions (constant time to read). */
export interface ChannelRepo {
  /** One page of the listed channels (see `isListed`): latest archive first, channels without one last, ties by channel id. */
  list(offset: number, limit: number): Promise<ChannelSummary[]>;
  /** The summary of a channel that has (or had) a record, listed or not; null for a channel Kura never saw. */
  find(channelId: string): Promise<ChannelSummary | null>;
}
