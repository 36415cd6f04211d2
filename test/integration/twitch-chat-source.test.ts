import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTwitchChatSource, type TwitchChatOptions } from '../../src/adapters/sources/twitch-chat-source.js';
import type { ChatMessage } from '../../src/core/chat/chat.js';
import { standInMessageId, startTwitchIrcStandIn, type TwitchIrcStandIn } from '../support/twitch-irc-stand-in.js';

// Twitch's chat source against the STAND-IN of Twitch's IRC over WebSocket
// (test/support/twitch-irc-stand-in.ts): how it logs in, what it hands on, and how it keeps
// following the chat through Twitch's PINGs, a RECONNECT, a dropped connection and silence.
const URL_OF_ALICE = 'https://www.twitch.tv/alice#kura-broadcast=41234567890';
let irc: TwitchIrcStandIn;
let stop: AbortController;

beforeEach(async () => {
  irc = await startTwitchIrcStandIn({ reconnectGraceMs: 60_000, pongWithinMs: 3000 });
  stop = new AbortController();
});
afterEach(async () => {
  stop.abort();
  await irc.close();
});

/** Follows Alice's chat; `arrived(n)` resolves once n messages were handed on. */
function follow(options: Partial<TwitchChatOptions> = {}, url = URL_OF_ALICE) {
  const messages: ChatMessage[] = [];
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  const source = createTwitchChatSource({ url: irc.url, firstRetryMs: 10, ...options });
  const ended = source.follow(
    url,
    (message) => {
      messages.push(message);
      for (const w of waiting.filter((w) => messages.length >= w.count)) w.resolve();
    },
    stop.signal,
  );
  const arrived = (count: number) => new Promise<void>((resolve) => (messages.length >= count ? resolve() : waiting.push({ count, resolve })));
  return { messages, ended, arrived };
}

describe("Twitch's chat over IRC (stand-in)", () => {
  it('joins the channel as an anonymous justinfan with tags and commands, hands each message on, and ends when the capture stops', async () => {
    const chat = follow();
    const connection = await irc.joined(1);
    expect(connection.received).toEqual([
      'CAP REQ :twitch.tv/tags twitch.tv/commands',
      'PASS SCHMOOPIIE',
      expect.stringMatching(/^NICK justinfan\d+$/),
      'JOIN #alice',
    ]);
    for (const n of [3, 4, 10]) irc.chat(n);
    await chat.arrived(3);
    expect(chat.messages.map((m) => m.id)).toEqual([3, 4, 10].map(standInMessageId));
    expect(chat.messages[0]).toMatchObject({ text: 'Kappa message 3', sentAt: new Date(irc.sentAt.get(3) as number), emojis: [{ shortcut: 'Kappa' }] });
    expect(chat.messages[1]?.author).toEqual({ name: 'Viewer;4\\', channelId: 'twitch:viewer4', badges: [] });
    expect(chat.messages[2]).toMatchObject({
      text: "Viewer10 subscribed at Tier 1. They've subscribed for 6 months! message 10",
      author: { badges: ['member'] },
    });
    stop.abort();
    await expect(chat.ended).resolves.toBe('ended');
    expect(connection.closedBy).toBe('client');
  });

  it("answers Twitch's PING with its PONG, on the same connection", async () => {
    const chat = follow();
    await irc.joined(1);
    await irc.ping();
    expect(irc.connections[0]?.received.at(-1)).toBe('PONG :tmi.twitch.tv');
    irc.chat(1);
    await chat.arrived(1);
    expect(irc.connections).toHaveLength(1);
  });

  it('leaves at once on RECONNECT and joins again on a new connection, the chat going on', async () => {
    const chat = follow();
    await irc.joined(1);
    irc.chat(1);
    await chat.arrived(1);
    irc.reconnect();
    const second = await irc.joined(2);
    // it left: the stand-in had not closed it (it waits a minute)
    expect(irc.connections[0]?.closedBy).toBe('client');
    irc.chat(2);
    await chat.arrived(2);
    expect(second.sent).toEqual([2]);
    expect(chat.messages.map((m) => m.id)).toEqual([1, 2].map(standInMessageId));
  });

  it('connects again when the connection drops, and when Twitch says nothing for too long', async () => {
    const chat = follow({ quietMs: 300 });
    await irc.joined(1);
    irc.drop();
    await irc.joined(2);
    expect(irc.connections[0]?.closedBy).toBe('drop');
    irc.chat(7);
    await chat.arrived(1);
    expect(chat.messages[0]?.author.badges).toEqual(['moderator']);
    // no message, no PING: the connection is taken as dead and replaced
    await irc.joined(3);
    expect(irc.connections[1]?.closedBy).toBe('client');
  });

  it('gives up, with the reason, once `tries` connections in a row fail before joining', async () => {
    irc.refuse = 100;
    const chat = follow({ tries: 3 });
    await expect(chat.ended).rejects.toThrow(/^Twitch's chat of #alice could not be read \(3 connections in a row\): /);
    expect(100 - irc.refuse).toBe(3);
  });

  it('gives up on a channel Twitch says does not exist, in its words', async () => {
    irc.suspended.add('alice');
    const chat = follow({ tries: 2 });
    await expect(chat.ended).rejects.toThrow(/\(2 connections in a row\): Twitch said: This channel does not exist or has been suspended\.$/);
    expect(irc.connections.map((c) => c.received.at(-1))).toEqual(['JOIN #alice', 'JOIN #alice']);
  });

  it('a URL that names no Twitch channel has no chat here', async () => {
    await expect(follow({}, 'https://www.youtube.com/watch?v=abc').ended).resolves.toBe('none');
    expect(irc.connections).toEqual([]);
  });
});
