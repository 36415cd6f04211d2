import type { ChannelSummary } from './channel.js';

/** Channel summaries, kept by triggers in the records' own transactions (constant time to read). */
export interface ChannelRepo {
  /** One page of the listed channels (see `isListed`): latest archive first, channels without one last, ties by channel id. */
  list(offset: number, limit: number): Promise<ChannelSummary[]>;
  /**
   * The summary of a channel that has (or had) a record or a follow, listed or not; null for a
   * channel Kura never saw. A followed channel without records has zero counts and the follow's name.
   */
  find(channelId: string): Promise<ChannelSummary | null>;
  /** Followed channels with no archive nor queued stream (listed after the others), by channel id. */
  listFollowedOnly(offset: number, limit: number): Promise<ChannelSummary[]>;
  /** How many followed channels have no archive nor queued stream (a count over the follows, a small table). */
  countFollowedOnly(): Promise<number>;
}
