// Decisions: docs/decisions/0137-twitch-chat-over-irc.md
import type { ChatBadge, ChatMessage } from '../../core/chat/chat.js';

/**
 * Twitch's chat as its IRC server sends it (https://dev.twitch.tv/docs/chat/irc/): RFC 1459 lines
 * with IRCv3 message tags (https://ircv3.net/specs/extensions/message-tags), the tags Twitch
 * documents for PRIVMSG and USERNOTICE (https://dev.twitch.tv/docs/chat/irc/#privmsg-tags):
 * `id`, `tmi-sent-ts` (ms since the epoch), `display-name`, `user-id`, `badges`, `emotes`, `bits`,
 * and for a USERNOTICE `login` and `system-msg`.
 */

/** One IRC line: its tags (unescaped), the source's nick, the command and its parameters (the trailing one last). */
export interface IrcLine {
  tags: Record<string, string>;
  nick: string | null;
  command: string;
  params: string[];
}

/** Reads one line as RFC 1459 and IRCv3 write it; null for an empty line. */
export function parseIrcLine(raw: string): IrcLine | null {
  let rest = raw.replace(/\r?\n$/, '');
  const tags: Record<string, string> = {};
  if (rest.startsWith('@')) {
    const space = rest.indexOf(' ');
    for (const pair of rest.slice(1, space === -1 ? undefined : space).split(';')) {
      const equals = pair.indexOf('=');
      if (equals === -1) tags[pair] = '';
      else tags[pair.slice(0, equals)] = unescapeTag(pair.slice(equals + 1));
    }
    rest = space === -1 ? '' : rest.slice(space + 1).trimStart();
  }
  let nick: string | null = null;
  if (rest.startsWith(':')) {
    const space = rest.indexOf(' ');
    const source = rest.slice(1, space === -1 ? undefined : space);
    nick = source.split('!')[0] ?? source;
    rest = space === -1 ? '' : rest.slice(space + 1).trimStart();
  }
  const trailingAt = rest.indexOf(' :');
  const head = trailingAt === -1 ? rest : rest.slice(0, trailingAt);
  const [command = '', ...params] = head.split(' ').filter((part) => part !== '');
  if (trailingAt !== -1) params.push(rest.slice(trailingAt + 2));
  if (command === '') return null;
  return { tags, nick, command: command.toUpperCase(), params };
}

/** A tag's value as written (IRCv3: `\:` is `;`, `\s` a space, `\\` a backslash, `\r` and `\n` themselves; any other escaped character stands for itself; a lone final `\` is dropped). */
export function unescapeTag(value: string): string {
  return value.replace(/\\(.?)/gs, (_match, next: string) => ESCAPES[next] ?? next);
}
const ESCAPES: Record<string, string> = { ':': ';', s: ' ', '\\': '\\', r: '\r', n: '\n' };

/** Twitch's badges Kura shows (`badges=broadcaster/1,subscriber/12`); the others (vip, turbo, bits…) say nothing of the author's place in the channel. */
const BADGES: Record<string, ChatBadge> = { broadcaster: 'owner', moderator: 'moderator', subscriber: 'member', founder: 'member', partner: 'verified' };

/** A CTCP message's marker (`/me` is `\u0001ACTION words\u0001`). */
const CTCP = '\u0001';
const ACTION = `${CTCP}ACTION `;

/** Where an emote's image is (Twitch's emote CDN, https://dev.twitch.tv/docs/irc/emotes/). */
const emoteUrl = (id: string) => `https://static-cdn.jtvnw.net/emoticons/v2/${encodeURIComponent(id)}/default/dark/1.0`;

/**
 * The chat message an IRC line carries: a PRIVMSG (what a viewer wrote; a cheer is paid in bits)
 * or a USERNOTICE (a sub, a resub, a gift, a raid, an announcement: Twitch's own words for it,
 * then the viewer's, when there are some). Null for every other line, deletions (CLEARCHAT,
 * CLEARMSG) included: the archive keeps what was said, as it does of YouTube's chat.
 */
export function readTwitchMessage(line: IrcLine): ChatMessage | null {
  if (line.command !== 'PRIVMSG' && line.command !== 'USERNOTICE') return null;
  const { tags } = line;
  const sentAt = Number(tags['tmi-sent-ts']);
  if (!tags.id || !/^\d+$/.test(tags['tmi-sent-ts'] ?? '') || !Number.isFinite(sentAt)) return null;
  const login = line.command === 'USERNOTICE' ? (tags.login ?? '') : (line.nick ?? tags.login ?? '');
  // `/me` arrives as a CTCP ACTION; the emotes' places count from after its marker
  const written = line.params[1] ?? '';
  const said = written.startsWith(ACTION) ? written.slice(ACTION.length, written.endsWith(CTCP) ? -1 : undefined) : written;
  const notice = line.command === 'USERNOTICE' ? (tags['system-msg'] ?? '').trim() : '';
  const bits = Number(tags.bits);
  return {
    id: tags.id,
    sentAt: new Date(sentAt),
    author: {
      name: tags['display-name'] || login,
      channelId: login === '' ? '' : `twitch:${login.toLowerCase()}`,
      badges: badgesOf(tags.badges ?? ''),
    },
    text: [notice, said].filter((part) => part !== '').join(' '),
    emojis: emotesOf(tags.emotes ?? '', said),
    paid: line.command === 'PRIVMSG' && Number.isInteger(bits) && bits > 0 ? { amount: bits, currency: 'bits', text: `${bits} bits` } : null,
  };
}

function badgesOf(tag: string): ChatBadge[] {
  const badges: ChatBadge[] = [];
  for (const badge of tag.split(',')) {
    const known = BADGES[badge.split('/')[0] ?? ''];
    if (known !== undefined && !badges.includes(known)) badges.push(known);
  }
  return badges;
}

/**
 * The emotes of `emotes=25:0-4,12-16/1902:6-10`: each id with the places (first-last, counted in
 * Unicode code points, both included) its name takes in the text. Each named once, by its name.
 */
function emotesOf(tag: string, text: string): ChatMessage['emojis'] {
  const characters = [...text];
  const emojis: ChatMessage['emojis'] = [];
  for (const emote of tag.split('/')) {
    const [id, places] = emote.split(':');
    const [first, last] = (places ?? '').split(',')[0]?.split('-').map(Number) ?? [];
    if (!id || first === undefined || last === undefined || !(first >= 0 && last >= first && last < characters.length)) continue;
    const shortcut = characters.slice(first, last + 1).join('');
    if (!emojis.some((e) => e.shortcut === shortcut)) emojis.push({ shortcut, url: emoteUrl(id) });
  }
  return emojis;
}
