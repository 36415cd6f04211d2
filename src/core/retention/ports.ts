import type { NamedRules, RetentionCandidate } from './plan-retention.js';
import type { RetentionRules } from './retention-rules.js';

/** Where retention reads what it weighs and keeps the channels' rules and the pins. */
export interface RetentionRepo {
  /** Every finished record (pinned ones and those being taken down too, flagged), with its size, age and the follow that queued it. */
  candidates(): Promise<RetentionCandidate[]>;
  /** Every follow's rules (named `follow {its channel name}`) and every channel's that has a row (named `channel {its name}`). */
  ruleSets(): Promise<{ follows: Map<string, NamedRules>; channels: Map<string, NamedRules> }>;
  /** A channel's rules; null: none set. */
  channelRules(channelId: string): Promise<RetentionRules | null>;
  setChannelRules(channelId: string, rules: RetentionRules, by: { admin: string; at: Date }): Promise<void>;
  /**
   * Notes a takedown by `admin` on a record still finished, unpinned and not already being taken
   * down (it is not served from then on); false when it no longer is all that.
   */
  markForRemoval(id: string, admin: string, reason: string): Promise<boolean>;
  /** The records `admin` marked for removal that are still there (a run that died before removing them). */
  pendingRemovals(admin: string): Promise<string[]>;
  /** False when no record has the id. */
  setPinned(id: string, pinned: boolean): Promise<boolean>;
}
