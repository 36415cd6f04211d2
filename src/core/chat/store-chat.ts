// Decisions: docs/decisions/0113-chat-capture-job.md
import { objectKeys, objectMeta } from '../archive/object-keys.js';
import type { ArchiveStore } from '../archive/ports.js';
import type { ChatArchive, Spool } from '../capture/ports.js';
import type { Livestream } from '../records/livestream.js';
import { toChatLine } from './chat.js';
import type { ChatLog } from './ports.js';

export interface StoreChatDeps {
  chats: ChatLog;
  store: ArchiveStore;
  spool: Spool;
}

/**
 * Stores the stream's captured chat beside its archive (objectKeys.chat: one JSON message a
 * line, oldest first, gzip), once the chat capture has stored its last batch — it stops within
 * moments of the video capture, so it is waited for up to `waitMs`; messages stored after that
 * are not kept. Answers how many messages it stored, or null when the stream has no chat.
 */
export async function storeChat(deps: StoreChatDeps, record: Pick<Livestream, 'id' | 'title'>, waitMs: number): Promise<number | null> {
  const deadline = Date.now() + waitMs;
  let chat = await deps.chats.state(record.id);
  while (chat?.state === 'capturing' && chat.held && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    chat = await deps.chats.state(record.id);
  }
  if (chat === null || chat.state === 'none') return null;
  // the video is over, so is its chat: one still held past the wait stops at its next store, and
  // one whose attempts kept failing (its job retrying) failed
  if (chat.state === 'capturing') await deps.chats.finish(record.id, chat.held || chat.detail === null ? 'ended' : 'failed');
  const start = (await deps.chats.archiveStart(record.id)) ?? new Date(0);
  const chats = deps.chats;
  async function* lines(): AsyncIterable<string> {
    for await (const page of chats.all(record.id)) yield page.map((m) => `${JSON.stringify(toChatLine(m, start))}\n`).join('');
  }
  const file = await deps.spool.writeGzip(record.id, 'chat.ndjson.gz', lines());
  await deps.store.put(objectKeys.chat(record.id), file, objectMeta(record, 'chat'));
  return deps.chats.count(record.id);
}

/** Finalize's port to the chat: `storeChat` on these parts. */
export function chatArchive(deps: StoreChatDeps): ChatArchive {
  return { store: (record, waitMs) => storeChat(deps, record, waitMs) };
}
