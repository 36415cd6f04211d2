// Decisions: docs/decisions/0010-one-record-presenter-per-audience.md
/**
 * What anonymous readers may see of a URL someone gave Kura (a follow's, a record's source, a
 * webhook's), and of an error about one. The admin sees URLs and errors whole.
 */

/** Who a view is for: `admin` sees URLs and errors as they are; everyone else sees them redacted. */
export type Audience = 'public' | 'admin';

/** What stands for a hidden query value, query part or fragment. */
export const MASK = '***';

/** What a public error says instead of where a name points, when Kura refused to connect to a non-public address. */
export const NOT_PUBLIC_ADDRESS = 'refused: not a public address';

/**
 * The fragment Kura adds to a record's URL where the site's page is a channel's (Twitch): which
 * broadcast of it the record is (decision 0133). Kura's own words, never a secret: shown whole.
 */
export const BROADCAST_MARK = 'kura-broadcast=';

/** YouTube's hosts, whose link parameters are not secrets and keep their values (the public needs a link that plays). */
const YOUTUBE_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com', 'youtu.be']);
/** YouTube's video, playlist, start time and playlist position. */
const YOUTUBE_OPEN_PARAMETERS = new Set(['v', 'list', 't', 'index']);

/**
 * A URL as the public sees it: user name and password removed, every query value masked (`?token=***`;
 * a part without `=` masked whole), a fragment masked; scheme, host, port and path kept. YouTube's
 * `v`, `list`, `t` and `index` keep their values, and Kura's broadcast mark its own. A URL with nothing to hide comes back unchanged;
 * text that does not parse as a URL loses everything from `?` or `#` and anything before an `@`.
 */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw.replace(/[?#].*$/s, '').replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, '$1');
  }
  if (url.username === '' && url.password === '' && url.search === '' && url.hash === '') return raw;
  url.username = '';
  url.password = '';
  const open = YOUTUBE_HOSTS.has(url.hostname.toLowerCase()) ? YOUTUBE_OPEN_PARAMETERS : new Set<string>();
  url.search = url.search
    .slice(1)
    .split('&')
    .map((part) => maskPart(part, open))
    .join('&');
  if (url.hash !== '' && !url.hash.startsWith(`#${BROADCAST_MARK}`)) url.hash = MASK;
  return url.href;
}

function maskPart(part: string, open: ReadonlySet<string>): string {
  const equals = part.indexOf('=');
  if (equals === -1) return part === '' ? part : MASK;
  const key = part.slice(0, equals);
  return open.has(key) ? part : `${key}=${MASK}`;
}

/** Anything in free text that reads as an absolute URL with an authority (`https://…`), up to white space or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;
/** Punctuation that ends a sentence or clause rather than the URL before it (`…/a.m3u8: HTTP 404`, `(see https://…)`). */
const TRAILING_PUNCTUATION = /[.,:;!?)\]]+$/;

/** Free text (an error's words) with every URL in it redacted as `redactUrl` does. */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (found) => {
    const trailing = TRAILING_PUNCTUATION.exec(found)?.[0] ?? '';
    return redactUrl(found.slice(0, found.length - trailing.length)) + trailing;
  });
}

/**
 * An error as the public may read it: its `publicMessage` when it carries one (an adapter's
 * refusal of a non-public address says NOT_PUBLIC_ADDRESS there, never the address), otherwise
 * its message with every URL in it redacted.
 */
export function publicErrorWords(error: unknown): string {
  const carried = (error as { publicMessage?: unknown } | null)?.publicMessage;
  if (typeof carried === 'string') return carried;
  return redactUrlsIn(error instanceof Error ? error.message : String(error));
}

/** A URL for this audience: whole for the admin, redacted for everyone else. */
export function urlFor(audience: Audience, url: string): string {
  return audience === 'admin' ? url : redactUrl(url);
}
