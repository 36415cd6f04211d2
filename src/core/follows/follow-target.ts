import { AppError } from '../errors.js';

/** What a follow URL names, before a YouTube handle or id is resolved. */
export type FollowTarget =
  | { kind: 'youtube_channel'; channel: string }
  | { kind: 'holodex'; url: string; name: string }
  | { kind: 'hls_endpoint'; url: string; host: string }
  | { kind: 'twitch_channel'; login: string };

const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;
const HANDLE = /^@[A-Za-z0-9._-]{1,100}$/;
const YOUTUBE_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com']);
const HOLODEX = /^holodex:(org|topic)\/(.{1,200})$/;
const TWITCH_HOSTS = new Set(['twitch.tv', 'www.twitch.tv', 'm.twitch.tv']);
/** A Twitch login: letters, digits and underscores (Twitch's names are 4–25 long; a few old ones are shorter). */
const TWITCH_LOGIN = /^[A-Za-z0-9_]{1,25}$/;

const invalid = (detail: string) => new AppError('invalid', 'invalid_follow', detail);

/**
 * Parses the forms a follow accepts: a YouTube channel URL (`/channel/UC…`, `/@handle`, with any
 * tab after it), a bare `UC…` id or `@handle`, `holodex:org/NAME` or `holodex:topic/NAME`, a
 * Twitch channel's page (`https://www.twitch.tv/{login}`), or an http(s) URL ending `.m3u8`.
 * Throws `invalid_follow` naming the forms for anything else.
 */
export function parseFollowTarget(input: string): FollowTarget {
  const text = input.trim();
  if (CHANNEL_ID.test(text) || HANDLE.test(text)) return { kind: 'youtube_channel', channel: text };
  const holodex = HOLODEX.exec(text);
  if (holodex) return { kind: 'holodex', url: `holodex:${holodex[1]}/${holodex[2]}`, name: holodex[2] as string };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`"${text}" is not a URL Kura can follow. ${FORMS}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`Kura follows http(s) URLs only. ${FORMS}`);
  if (YOUTUBE_HOSTS.has(url.hostname.toLowerCase())) return { kind: 'youtube_channel', channel: youTubeChannel(url) };
  if (TWITCH_HOSTS.has(url.hostname.toLowerCase())) return { kind: 'twitch_channel', login: twitchLogin(url) };
  if (url.pathname.toLowerCase().endsWith('.m3u8')) return { kind: 'hls_endpoint', url: url.href, host: url.hostname };
  throw invalid(`${url.href} is neither a YouTube or Twitch channel nor an HLS playlist (.m3u8). ${FORMS}`);
}

const FORMS =
  'Follow a YouTube channel (https://www.youtube.com/channel/UC…, https://www.youtube.com/@handle, UC…, @handle), ' +
  'holodex:org/NAME, holodex:topic/NAME, a Twitch channel (https://www.twitch.tv/NAME), or an HLS playlist URL ending .m3u8.';

function youTubeChannel(url: URL): string {
  const [first, second] = url.pathname.split('/').filter(Boolean);
  if (first === 'channel' && second !== undefined && CHANNEL_ID.test(second)) return second;
  if (first !== undefined && HANDLE.test(decodeSafely(first))) return decodeSafely(first);
  throw invalid(`${url.href} is not a YouTube channel: follow its /channel/UC… or /@handle page. ${FORMS}`);
}

function twitchLogin(url: URL): string {
  const [login, ...rest] = url.pathname.split('/').filter(Boolean);
  if (login === undefined || rest.length > 0 || !TWITCH_LOGIN.test(login))
    throw invalid(`${url.href} is not a Twitch channel: follow its page, https://www.twitch.tv/NAME. ${FORMS}`);
  return login.toLowerCase();
}

/** The URL a Twitch channel follow keeps, and where each of its streams is recorded from. */
export function twitchChannelUrl(login: string): string {
  return `https://www.twitch.tv/${login}`;
}

/** The login of a Twitch follow's kept URL (`https://www.twitch.tv/{login}`), or null. */
export function twitchLoginOf(url: string): string | null {
  return /^https:\/\/www\.twitch\.tv\/([a-z0-9_]+)$/.exec(url)?.[1] ?? null;
}

function decodeSafely(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The URL a YouTube channel follow keeps (a handle resolved, so a rename never breaks it). */
export function youTubeChannelUrl(channelId: string): string {
  return `https://www.youtube.com/channel/${channelId}`;
}

/** Whether a resolved id is a YouTube channel id. */
export function isYouTubeChannelId(id: string): boolean {
  return CHANNEL_ID.test(id);
}
