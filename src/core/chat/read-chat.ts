// Decisions: docs/decisions/0113-chat-capture-job.md
import { AppError } from '../errors.js';
import { getLivestream } from '../records/get-livestream.js';
import type { LivestreamRepo } from '../records/ports.js';
import { toChatLine, type ChatLine, type ChatState } from './chat.js';
import type { ChatFiles, ChatLog } from './ports.js';

export interface ChatReadDeps {
  livestreams: LivestreamRepo;
  chats: ChatLog;
  /** A finalized archive's chat: its stored file (decision 0112). */
  chatFiles: ChatFiles;
}

/** A page of the chat on the archive's timeline. */
export interface ChatPage {
  /** `none`: the stream has no chat (neither YouTube's nor Twitch's, chat disabled, or recorded before chats were). */
  state: ChatState;
  archiveStart: Date | null;
  messages: ChatLine[];
  /** When the window held more than the page: the offset to ask from next (messages at it may repeat; their ids tell). */
  next: number | null;
}

/**
 * The chat messages from `from` (inclusive) to `to` (exclusive) seconds of the archive, oldest
 * first, at most `limit`; live while the stream is recorded. Throws `livestream_not_found`,
 * `invalid_parameter` (an empty or reversed window).
 */
export async function getChatWindow(deps: ChatReadDeps, id: string, range: { from: number; to: number; limit: number }): Promise<ChatPage> {
  if (!(range.from < range.to))
    throw new AppError('invalid', 'invalid_parameter', `The window's "from" (${range.from}) must come before its "to" (${range.to}).`);
  await getLivestream(deps, id);
  const chat = await deps.chats.state(id);
  if (chat?.filedAt) return filedWindow(deps, id, chat, range);
  const window = chat === null ? null : await deps.chats.window(id, range);
  if (chat === null || window === null) return { state: 'none', archiveStart: null, messages: [], next: null };
  if (window.messages.length === 0 && chat.state !== 'capturing') {
    // filed between the two reads (its rows deleted once its file was stored): read from the file
    const again = await deps.chats.state(id);
    if (again?.filedAt) return filedWindow(deps, id, again, range);
  }
  const messages = window.messages.map((m) => toChatLine(m, window.archiveStart));
  return { state: chat.state, archiveStart: window.archiveStart, messages, next: window.truncated ? (messages.at(-1)?.offset ?? null) : null };
}

async function filedWindow(
  deps: ChatReadDeps,
  id: string,
  chat: { state: ChatState; filedAt: Date | null },
  range: { from: number; to: number; limit: number },
): Promise<ChatPage> {
  const { messages, truncated } = windowOf(await filedLines(deps, id, chat.filedAt as Date), range);
  const next = truncated ? (messages.at(-1)?.offset ?? null) : null;
  return { state: chat.state, archiveStart: await deps.chats.archiveStart(id), messages, next };
}

/** How many chat messages each minute of the archive holds (minute 0 first). Throws `livestream_not_found`. */
export async function getChatActivity(deps: ChatReadDeps, id: string): Promise<{ state: ChatState; perMinute: number[] }> {
  await getLivestream(deps, id);
  const chat = await deps.chats.state(id);
  if (chat === null) return { state: 'none', perMinute: [] };
  if (chat.filedAt === null) return { state: chat.state, perMinute: await deps.chats.perMinute(id) };
  const perMinute: number[] = [];
  for (const line of await filedLines(deps, id, chat.filedAt)) {
    if (line.offset < 0) continue; // before the archive's start, as the messages' own count leaves out
    const minute = Math.floor(line.offset / 60);
    while (perMinute.length <= minute) perMinute.push(0);
    perMinute[minute] = (perMinute[minute] as number) + 1;
  }
  return { state: chat.state, perMinute };
}

/** The lines of a filed chat's stored file. Throws `chat_not_found` when the store lost it. */
async function filedLines(deps: Pick<ChatReadDeps, 'chatFiles'>, id: string, filedAt: Date): Promise<readonly ChatLine[]> {
  const lines = await deps.chatFiles.lines(id, filedAt);
  if (lines === null) throw new AppError('not_found', 'chat_not_found', `The chat file of ${id} is missing from the archive storage.`);
  return lines;
}

/** The lines from `range.from` (inclusive) to `range.to` (exclusive), at most `range.limit`, and whether the window held more. */
function windowOf(lines: readonly ChatLine[], range: { from: number; to: number; limit: number }): { messages: ChatLine[]; truncated: boolean } {
  const first = firstAtOrAfter(lines, range.from);
  let end = first;
  while (end < lines.length && end - first <= range.limit && (lines[end] as ChatLine).offset < range.to) end++;
  return { messages: lines.slice(first, Math.min(end, first + range.limit)), truncated: end - first > range.limit };
}

/** The index of the first line at `offset` or later, in lines ordered by offset. */
function firstAtOrAfter(lines: readonly ChatLine[], offset: number): number {
  let low = 0;
  let high = lines.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((lines[middle] as ChatLine).offset < offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Whether the finished record's chat is stored for download (see storeChat). Throws `chat_not_found`. */
export async function requireStoredChat(deps: Pick<ChatReadDeps, 'chats'>, id: string): Promise<void> {
  const chat = await deps.chats.state(id);
  if (chat === null || chat.state === 'none')
    throw new AppError('not_found', 'chat_not_found', `${id} has no live chat: only YouTube streams with their chat on have one.`);
}
