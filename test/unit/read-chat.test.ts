import { describe, expect, it } from 'vitest';
import { getChatWindow, type ChatReadDeps } from '../../src/core/chat/read-chat.js';
import type { ChatLine } from '../../src/core/chat/chat.js';
import type { ChatLog } from '../../src/core/chat/ports.js';

// The moment a finished archive's chat is filed: its rows are deleted once its file is stored.
// A reader that found it not filed yet, then its rows gone, reads the file (fakes of the ports).
const START = new Date('2026-11-30T12:00:00Z');
const LINE: ChatLine = { id: 'm1', offset: 5, time: '2026-11-30T12:00:05.000Z', author: { name: 'Alice', channelId: 'twitch:alice', badges: [] }, text: 'hi' };

function depsFiledBetweenReads(): ChatReadDeps {
  let stateReads = 0;
  const chats = {
    // the first read finds the chat ended but not filed; by the second, finalize has filed it
    state: async () => ({ state: 'ended' as const, held: false, detail: null, filedAt: ++stateReads === 1 ? null : START }),
    window: async () => ({ archiveStart: START, messages: [], truncated: false }),
    archiveStart: async () => START,
  } as unknown as ChatLog;
  return {
    livestreams: { findById: async () => ({ id: 'twitch-1', takedown: null }) } as unknown as ChatReadDeps['livestreams'],
    chats,
    chatFiles: { lines: async () => [LINE] },
  };
}

describe('a chat window read while the chat is filed', () => {
  it('comes from the stored file, not empty', async () => {
    const page = await getChatWindow(depsFiledBetweenReads(), 'twitch-1', { from: 0, to: 60, limit: 100 });
    expect(page).toEqual({ state: 'ended', archiveStart: START, messages: [LINE], next: null });
  });
});
