import type { ChatLine, ChatMessage, ChatState } from './chat.js';

/** How a chat stopped on its own: the stream's chat ended, or the stream has none. */
export type ChatEnd = 'ended' | 'none';

/** A stream's live chat as it is sent (YouTube's through yt-dlp, Twitch's over its IRC). */
export interface ChatSource {
  /**
   * Follows the chat of `sourceUrl`, handing each message on as it arrives, until the chat ends,
   * proves absent, or `signal` aborts (resolves then). Rejects when the chat cannot be read.
   */
  follow(sourceUrl: string, onMessage: (message: ChatMessage) => void, signal: AbortSignal): Promise<ChatEnd>;
}

/** A window of the chat on the archive's timeline: messages from `from` (inclusive) to `to` (exclusive) seconds. */
export interface ChatWindow {
  /** The wall-clock time of the archive's 0 s (see ChatLog.archiveStart). */
  archiveStart: Date;
  messages: ChatMessage[];
  /** More messages in the window than the page holds. */
  truncated: boolean;
}

/** Captured chats in the database: the lease of their capture, their messages, and reads. */
export interface ChatLog {
  /** Takes the chat capture of a stream for `workerId` unless another live worker holds it or it is over; false then. */
  claim(livestreamId: string, workerId: string, staleAfterSeconds: number): Promise<boolean>;
  /**
   * Stores messages (those already stored are skipped) and renews the lease, in one statement:
   * `capturing` while the stream's video capture goes on, `over` once it does not, `lost` when
   * another worker took the chat over.
   */
  append(livestreamId: string, workerId: string, messages: readonly ChatMessage[]): Promise<'capturing' | 'over' | 'lost'>;
  /** Gives the lease up (a stopping worker, a failed attempt: `why`), so another worker may take the chat over at once. */
  release(livestreamId: string, workerId: string, why?: string): Promise<void>;
  /** Ends the chat capture (`ended`, `none`, `failed` with why) and gives its lease up. */
  finish(livestreamId: string, state: Exclude<ChatState, 'capturing'>, detail?: string): Promise<void>;
  /**
   * The chat capture's state, whether a worker holds it, why its last attempt failed, and whether
   * it is filed (its messages deleted once its archive was finalized: they are read from the
   * stored chat file, decision 0112: `filedAt`, null before); null when the stream has none (never started).
   */
  state(livestreamId: string): Promise<{ state: ChatState; held: boolean; detail: string | null; filedAt: Date | null } | null>;
  /**
   * The wall-clock time of the archive's 0 s: when the first captured segment's media was live,
   * estimated from how promptly the first segments were fetched; the capture's start before any.
   */
  archiveStart(livestreamId: string): Promise<Date | null>;
  /** Messages from `from` to `to` seconds of the archive, oldest first, at most `limit`. */
  window(livestreamId: string, range: { from: number; to: number; limit: number }): Promise<ChatWindow | null>;
  /** Messages per minute of the archive (minute 0 first; messages before the start are not counted). */
  perMinute(livestreamId: string): Promise<number[]>;
  /** Every message, oldest first, in pages (the archive's chat file). */
  all(livestreamId: string): AsyncIterable<ChatMessage[]>;
  count(livestreamId: string): Promise<number>;
}

/** The chat files stored beside finished archives (objectKeys.chat), read back (decision 0112). */
export interface ChatFiles {
  /** Every line of the record's stored chat file, oldest first (its chat filed at `filedAt`); null when the store has none. */
  lines(livestreamId: string, filedAt: Date): Promise<readonly ChatLine[] | null>;
}
