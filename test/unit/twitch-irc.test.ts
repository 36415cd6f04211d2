import { describe, expect, it } from 'vitest';
import { parseIrcLine, readTwitchMessage, unescapeTag } from '../../src/adapters/sources/twitch-irc.js';
import { twitchChannelOf } from '../../src/adapters/sources/twitch-chat-source.js';

// Twitch's chat lines as its IRC documentation writes them (https://dev.twitch.tv/docs/chat/irc/,
// the PRIVMSG and USERNOTICE tags sections), read into Kura's chat messages.
const read = (line: string) => {
  const parsed = parseIrcLine(line);
  return parsed === null ? null : readTwitchMessage(parsed);
};

describe('an IRC line', () => {
  it('unescapes tag values as IRCv3 writes them: \\s, \\:, \\\\, \\r, \\n, any other escaped character itself, a lone final backslash dropped', () => {
    expect(unescapeTag('a\\sb\\:c\\\\d')).toBe('a b;c\\d');
    expect(unescapeTag('line\\rbreak\\nhere')).toBe('line\rbreak\nhere');
    expect(unescapeTag('\\b\\\\s')).toBe('b\\s');
    expect(unescapeTag('end\\')).toBe('end');
  });

  it('reads tags, source, command and parameters, the trailing one whole', () => {
    expect(parseIrcLine('@badges=;display-name=A\\sB;flag :nick!nick@nick.tmi.twitch.tv PRIVMSG #chan :hello :) there\r\n')).toEqual({
      tags: { badges: '', 'display-name': 'A B', flag: '' },
      nick: 'nick',
      command: 'PRIVMSG',
      params: ['#chan', 'hello :) there'],
    });
    expect(parseIrcLine('PING :tmi.twitch.tv')).toEqual({ tags: {}, nick: null, command: 'PING', params: ['tmi.twitch.tv'] });
    expect(parseIrcLine(':tmi.twitch.tv RECONNECT')).toEqual({ tags: {}, nick: 'tmi.twitch.tv', command: 'RECONNECT', params: [] });
    expect(parseIrcLine('')).toBeNull();
  });
});

describe("a Twitch chat line's message", () => {
  it('is a PRIVMSG as its tags describe it: id, sent time, display name, author, badges, emotes', () => {
    const message = read(
      '@badge-info=subscriber/8;badges=broadcaster/1,subscriber/6,glhf-pledge/1;color=#0000FF;display-name=Lovingt3s;emotes=25:0-4,12-16/1902:6-10;id=885196de-cb67-427a-baa8-82f9b0fcd05f;mod=0;room-id=713936733;subscriber=1;tmi-sent-ts=1643904084794;turbo=0;user-id=713936733;user-type= :lovingt3s!lovingt3s@lovingt3s.tmi.twitch.tv PRIVMSG #lovingt3s :Kappa Keepo Kappa',
    );
    expect(message).toEqual({
      id: '885196de-cb67-427a-baa8-82f9b0fcd05f',
      sentAt: new Date(1643904084794),
      author: { name: 'Lovingt3s', channelId: 'twitch:lovingt3s', badges: ['owner', 'member'] },
      text: 'Kappa Keepo Kappa',
      emojis: [
        { shortcut: 'Kappa', url: 'https://static-cdn.jtvnw.net/emoticons/v2/25/default/dark/1.0' },
        { shortcut: 'Keepo', url: 'https://static-cdn.jtvnw.net/emoticons/v2/1902/default/dark/1.0' },
      ],
      paid: null,
    });
  });

  it('places emotes by code points (an emoji before them counts one), a moderator and a partner badge, the login when there is no display name', () => {
    const message = read(
      '@badges=moderator/1,partner/1,vip/1;display-name=;emotes=25:2-6;id=a1;tmi-sent-ts=1700000000000 :viewer!viewer@viewer.tmi.twitch.tv PRIVMSG #chan :😀 Kappa!',
    );
    expect(message?.emojis).toEqual([{ shortcut: 'Kappa', url: expect.stringContaining('/25/') }]);
    expect(message?.author).toEqual({ name: 'viewer', channelId: 'twitch:viewer', badges: ['moderator', 'verified'] });
    // places outside the text are not trusted
    expect(read('@emotes=25:3-70;id=a2;tmi-sent-ts=1 :v!v@v PRIVMSG #c :Kappa')?.emojis).toEqual([]);
  });

  it('is the words of a /me (its CTCP ACTION marker dropped) and a cheer paid in bits', () => {
    expect(read('@emotes=25:0-4;id=a3;tmi-sent-ts=1 :v!v@v PRIVMSG #c :\u0001ACTION Kappa waves\u0001')).toMatchObject({
      text: 'Kappa waves',
      emojis: [{ shortcut: 'Kappa' }],
    });
    expect(read('@bits=100;id=a4;tmi-sent-ts=1 :v!v@v PRIVMSG #c :Cheer100 hello')?.paid).toEqual({ amount: 100, currency: 'bits', text: '100 bits' });
  });

  it("is a USERNOTICE's system message (escaped) then the viewer's words, its author the login's", () => {
    const resub = read(
      '@badges=staff/1,broadcaster/1,turbo/1;color=#008000;display-name=ronni;emotes=;id=db25007f-7a18-43eb-9379-80131e44d633;login=ronni;mod=0;msg-id=resub;msg-param-cumulative-months=6;room-id=12345678;subscriber=1;system-msg=ronni\\shas\\ssubscribed\\sfor\\s6\\smonths!;tmi-sent-ts=1507246572675;user-id=87654321 :tmi.twitch.tv USERNOTICE #dallas :Great stream -- keep it up!',
    );
    expect(resub).toMatchObject({
      id: 'db25007f-7a18-43eb-9379-80131e44d633',
      author: { name: 'ronni', channelId: 'twitch:ronni', badges: ['owner'] },
      text: 'ronni has subscribed for 6 months! Great stream -- keep it up!',
      paid: null,
    });
    const raid = read(
      '@display-name=TestChannel;id=3d830f12-795c-447d-af3c-ea05e40fbddb;login=testchannel;msg-id=raid;msg-param-viewerCount=15;system-msg=15\\sraiders\\sfrom\\sTestChannel\\shave\\sjoined\\n!;tmi-sent-ts=1507246572675 :tmi.twitch.tv USERNOTICE #othertestchannel',
    );
    expect(raid?.text).toBe('15 raiders from TestChannel have joined\n!');
  });

  it('is none for deletions, room states, notices, and a message without its id or sent time', () => {
    for (const line of [
      '@login=ronni;room-id=;target-msg-id=abc-123-def;tmi-sent-ts=1642720582342 :tmi.twitch.tv CLEARMSG #dallas :HeyGuys',
      '@ban-duration=350;room-id=12345678;target-user-id=87654321;tmi-sent-ts=1642715756806 :tmi.twitch.tv CLEARCHAT #dallas :ronni',
      '@emote-only=0;room-id=12826 :tmi.twitch.tv ROOMSTATE #chan',
      ':tmi.twitch.tv NOTICE * :Login authentication failed',
      '@tmi-sent-ts=1 :v!v@v PRIVMSG #c :no id',
      '@id=a5;tmi-sent-ts=soon :v!v@v PRIVMSG #c :no time',
    ])
      expect(read(line), line).toBeNull();
  });
});

describe("a Twitch record's channel", () => {
  it("is the login its URL's path begins with, on Twitch's hosts alone", () => {
    expect(twitchChannelOf('https://www.twitch.tv/Alice#kura-broadcast=41234567890')).toBe('alice');
    expect(twitchChannelOf('https://m.twitch.tv/alice_2')).toBe('alice_2');
    expect(twitchChannelOf('https://www.youtube.com/watch?v=x')).toBeNull();
    expect(twitchChannelOf('https://eviltwitch.tv/alice')).toBeNull();
    expect(twitchChannelOf('not a url')).toBeNull();
  });
});
