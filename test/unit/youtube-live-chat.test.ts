import { describe, expect, it } from 'vitest';
import { readAmount, readLiveChatLine } from '../../src/adapters/sources/youtube-live-chat.js';
// @ts-expect-error: a plain module of the yt-dlp stand-in, without types
import { chatActions, OWNER_CHANNEL } from '../support/live-chat.mjs';

const EVERY_MS = 500;
/** The lines yt-dlp writes for message n, as parse_actions_live wraps each action. */
const linesOf = (n: number): string[] =>
  (chatActions(n, { everyMs: EVERY_MS, emojiUrl: 'https://yt3.ggpht.com/wave' }) as unknown[]).map((action) =>
    JSON.stringify({ replayChatItemAction: { actions: [action] }, videoOffsetTimeMsec: '1234', isLive: true }),
  );

describe("reading yt-dlp's live_chat.json", () => {
  it('reads a message with its author, Unicode emoji as text and the time YouTube gave it', () => {
    const [message, ...rest] = linesOf(1).flatMap(readLiveChatLine);
    expect(rest).toEqual([]);
    expect(message).toEqual({
      id: Buffer.from('stand-in chat message 1').toString('base64url'),
      sentAt: new Date(EVERY_MS),
      author: { name: 'Viewer 1', channelId: 'UCviewer0000000000000001', badges: [] },
      text: 'message 1 🎤',
      emojis: [],
      paid: null,
    });
  });

  it("names a channel's own emoji by shortcut with its largest image, and reads member, moderator and owner badges", () => {
    const [member] = linesOf(5).flatMap(readLiveChatLine);
    expect(member).toMatchObject({ text: 'message 5 🎤 :_wave:', emojis: [{ shortcut: ':_wave:', url: 'https://yt3.ggpht.com/wave' }] });
    expect(member?.author.badges).toEqual(['member']);
    expect(linesOf(35).flatMap(readLiveChatLine)[0]?.author.badges).toEqual(['moderator', 'member']);
    expect(linesOf(22).flatMap(readLiveChatLine)[0]?.author).toEqual({ name: 'Fixture Channel', channelId: OWNER_CHANNEL, badges: ['owner'] });
  });

  it('reads a Super Chat once (its ticker is not a message) with amount and currency', () => {
    const lines = linesOf(13);
    expect(lines).toHaveLength(2);
    const messages = lines.flatMap(readLiveChatLine);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.paid).toEqual({ amount: 1000, currency: 'JPY', text: '¥1,000' });
    expect(messages[0]?.text).toBe('message 13 🎤');
    expect(linesOf(26).flatMap(readLiveChatLine)[0]?.paid).toEqual({ amount: 5, currency: 'USD', text: '$5.00' });
  });

  it('skips a line cut short by a crash and actions that are not messages', () => {
    const line = linesOf(2)[0] as string;
    expect(readLiveChatLine(line.slice(0, line.length / 2))).toEqual([]);
    expect(
      readLiveChatLine(JSON.stringify({ replayChatItemAction: { actions: [{ markChatItemAsDeletedAction: { targetItemId: 'x' } }] }, isLive: true })),
    ).toEqual([]);
  });

  it('reads amounts in the forms YouTube shows', () => {
    expect(readAmount('CA$10.00')).toEqual({ amount: 10, currency: 'CAD', text: 'CA$10.00' });
    expect(readAmount('₩10,000')).toEqual({ amount: 10000, currency: 'KRW', text: '₩10,000' });
    expect(readAmount('PLN 20.00')).toEqual({ amount: 20, currency: 'PLN', text: 'PLN 20.00' });
    expect(readAmount('€2.00')).toMatchObject({ amount: 2, currency: 'EUR' });
  });
});
