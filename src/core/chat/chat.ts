/** What a chat author is to the channel, as the platform's badges say (Twitch's broadcaster is the owner, its subscriber a member). */
export type ChatBadge = 'owner' | 'moderator' | 'member' | 'verified';

/** One message of a live chat, as captured. */
export interface ChatMessage {
  /** The platform's id of the message (unique within the stream). */
  id: string;
  /** When the platform says it was sent. */
  sentAt: Date;
  author: { name: string; channelId: string; badges: ChatBadge[] };
  /** The text: Unicode emoji as themselves, a channel's own emoji as its shortcut (`:_wave:`). */
  text: string;
  /** The channel's own emoji the text names by shortcut, with their image. */
  emojis: Array<{ shortcut: string; url: string }>;
  /**
   * A paid message (YouTube's Super Chat, Twitch's cheer): the amount in `currency` (ISO 4217 when
   * known, else the symbol shown; `bits` for a cheer) and the amount as shown.
   */
  paid: { amount: number; currency: string; text: string } | null;
}

/** Where a stream's chat capture stands. */
export type ChatState = 'capturing' | 'ended' | 'none' | 'failed';

/** A message as served and stored in the archive's chat file: its offset in seconds from the archive's start. */
export interface ChatLine {
  id: string;
  offset: number;
  time: string;
  author: ChatMessage['author'];
  text: string;
  emojis?: ChatMessage['emojis'];
  paid?: NonNullable<ChatMessage['paid']>;
}

/** A message placed on the archive's timeline (`archiveStart`: the wall-clock time of its 0 s). */
export function toChatLine(message: ChatMessage, archiveStart: Date): ChatLine {
  return {
    id: message.id,
    offset: Math.round(message.sentAt.getTime() - archiveStart.getTime()) / 1000,
    time: message.sentAt.toISOString(),
    author: message.author,
    text: message.text,
    ...(message.emojis.length > 0 ? { emojis: message.emojis } : {}),
    ...(message.paid !== null ? { paid: message.paid } : {}),
  };
}
