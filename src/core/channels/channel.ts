/** The archive most recently scheduled of a channel. */
export interface LatestArchive {
  id: string;
  title: string;
  scheduledStart: Date;
}

/** A channel as its records sum it up, from aggregates kept in the same transaction as the records. */
export interface ChannelSummary {
  channelId: string;
  /** The name on the channel's most recently scheduled record (a renamed channel shows its new name). */
  channelName: string;
  /** Finished records. */
  archives: number;
  /** Upcoming and live records. */
  upcoming: number;
  /** Failed records: never counted as archives, but in the channel's history with `unfinished=true`. */
  failed: number;
  /** Of the finished records. */
  totalFileSizeBytes: number;
  totalLengthSeconds: number;
  latestArchive: LatestArchive | null;
  /** Kura follows the channel (a follow names its channel id): listed even before its first record. */
  followed: boolean;
}

/** A channel is listed (and found) while it has an archive or a stream queued, or a follow. */
export function isListed(channel: ChannelSummary): boolean {
  return channel.archives + channel.upcoming > 0 || channel.followed;
}
