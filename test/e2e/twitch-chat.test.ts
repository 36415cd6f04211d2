import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALICE_STREAM, aliceOnTwitch } from '../support/live-site-state.js';
import { useSiteHarness } from '../support/site-harness.js';
import { standInMessageId, startTwitchIrcStandIn, type TwitchIrcStandIn } from '../support/twitch-irc-stand-in.js';

// A Twitch stream's chat, end to end: the yt-dlp STAND-IN answers as its Twitch extractor
// (test/support/yt-dlp-sites.mjs, as in live-sites.test.ts), a live HLS fixture is the stream,
// and the STAND-IN of Twitch's IRC over WebSocket (test/support/twitch-irc-stand-in.ts) is its
// chat, through a PING and a RECONNECT; the chat is read back from the API the chat panel reads.
const RECORD_ID = `twitch-${ALICE_STREAM}`;
const h = useSiteHarness();
let irc: TwitchIrcStandIn;
beforeEach(async () => {
  // a RECONNECT's connection is closed by the stand-in a minute later: only a client that leaves at once is back sooner
  irc = await startTwitchIrcStandIn({ reconnectGraceMs: 60_000 });
});
afterEach(async () => {
  await irc.close();
});

interface Served {
  state: string;
  messages: Array<{ id: string; offset: number; time: string; author: { name: string; channelId: string; badges: string[] }; text: string; paid?: object }>;
}
/** The chat the panel is served, once `done` holds of it (chat batches send no notification: asked every 200 ms, for a minute at most). */
async function servedChat(api: string, done: (chat: Served) => boolean): Promise<Served> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const chat = (await fetch(`${api}/api/video/${RECORD_ID}/chat?from=-600&to=6000`).then((r) => r.json())) as Served;
    if (done(chat) || Date.now() > deadline) return chat;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the chat of a Twitch stream (IRC stand-in)', () => {
  it('is captured into the chat store and served as YouTube’s is, through a PING and a RECONNECT, until the stream ends', async () => {
    const fixture = await h.startFixture({ seconds: 120 });
    const api = await h.serve({ KURA_TWITCH_CHAT_URL: irc.url });
    const encoded = fixture.start();
    await fixture.onAir();
    await h.sitesSay(aliceOnTwitch(fixture.url));
    const queued = await h.archive('https://www.twitch.tv/alice');
    expect(queued.code, queued.stderr).toBe(0);

    // the chat job joins Alice's channel as an anonymous viewer
    const first = await irc.joined(1);
    expect(first.received).toContain('JOIN #alice');
    for (let n = 1; n <= 5; n++) irc.chat(n);
    await irc.ping();
    irc.reconnect();
    const second = await irc.joined(2);
    expect(first.closedBy).toBe('client');
    for (let n = 6; n <= 13; n++) irc.chat(n);

    // while the stream is recorded: in the chat store, served by the chat panel's API
    const whileLive = await servedChat(api, (chat) => chat.messages.length >= 13);
    expect(whileLive.state).toBe('capturing');
    expect(whileLive.messages.map((m) => m.id)).toEqual(Array.from({ length: 13 }, (_, i) => standInMessageId(i + 1)));
    expect(second.sent).toEqual([6, 7, 8, 9, 10, 11, 12, 13]);

    await fixture.finish();
    await encoded;
    const done = await h.settled(RECORD_ID);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    // the chat left the channel when the video capture ended
    expect(irc.connections.map((c) => c.closedBy)).toEqual(['client', 'client']);

    // archived: read from the archive's chat file, each message as Twitch described it
    const archived = await servedChat(api, (chat) => chat.state === 'ended' && chat.messages.length >= 13);
    expect(archived.state).toBe('ended');
    expect(archived.messages.map((m) => m.id)).toEqual(whileLive.messages.map((m) => m.id));
    const byNumber = (n: number) => archived.messages.find((m) => m.id === standInMessageId(n));
    expect(byNumber(3)).toMatchObject({ text: 'Kappa message 3', author: { name: 'Viewer3', channelId: 'twitch:viewer3', badges: [] } });
    expect(byNumber(4)?.author.name).toBe('Viewer;4\\');
    expect(byNumber(10)?.text).toBe("Viewer10 subscribed at Tier 1. They've subscribed for 6 months! message 10");
    expect(byNumber(11)?.author).toEqual({ name: 'Alice', channelId: 'twitch:alice', badges: ['owner'] });
    expect(byNumber(13)?.paid).toEqual({ amount: 100, currency: 'bits', text: '100 bits' });
    expect(byNumber(7)?.time).toBe(new Date(irc.sentAt.get(7) as number).toISOString());
    // placed on the archive's timeline: sent after the recording began
    expect(archived.messages.every((m) => m.offset >= 0)).toBe(true);
  });
});
