// Decisions: docs/decisions/0020-youtube-through-yt-dlp.md
/** What a submitted URL is to the YouTube source. */
export type YouTubeUrl = { kind: 'video'; videoId: string; canonicalUrl: string } | { kind: 'rejected'; reason: string } | { kind: 'not_youtube' };

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const YOUTUBE_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com', 'youtube-nocookie.com', 'www.youtube-nocookie.com']);
const SHORT_HOSTS = new Set(['youtu.be', 'www.youtu.be']);
/** First path segments that name a channel rather than a video. */
const CHANNEL_PATHS = new Set(['channel', 'c', 'user']);

/**
 * Recognises the forms people paste for one YouTube video — `watch?v=`, `youtu.be/`, `/live/`,
 * `/embed/`, on `www.`, `m.` and `music.` — and rejects, with a reason, the YouTube URLs that do
 * not name one livestream (shorts, playlists, channels). The result's `canonicalUrl` is the one
 * form Kura stores, so every form of a video joins the same record.
 */
export function parseYouTubeUrl(raw: string): YouTubeUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { kind: 'not_youtube' };
  }
  const host = url.hostname.toLowerCase();
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { kind: 'not_youtube' };
  if (SHORT_HOSTS.has(host)) return video(url.pathname.split('/')[1]);
  if (!YOUTUBE_HOSTS.has(host)) return { kind: 'not_youtube' };

  const [first = '', second] = url.pathname.split('/').filter((part) => part !== '');
  if (first === 'watch') return url.searchParams.has('v') ? video(url.searchParams.get('v')) : rejected('a watch URL without a video id (v=)');
  if (first === 'live' || first === 'embed' || first === 'v') return video(second);
  if (first === 'shorts') return rejected('Shorts are not livestreams');
  if (first === 'playlist') return rejected('a playlist, not a livestream: submit the stream’s own watch URL');
  if (CHANNEL_PATHS.has(first) || first.startsWith('@')) return rejected('a channel, not a livestream: submit the stream’s own watch URL');
  return rejected('not a YouTube video URL');
}

function video(id: string | null | undefined): YouTubeUrl {
  if (id === null || id === undefined || !VIDEO_ID.test(id)) return rejected('the video id must be 11 characters of A–Z, a–z, 0–9, - and _');
  return { kind: 'video', videoId: id, canonicalUrl: `https://www.youtube.com/watch?v=${id}` };
}

function rejected(reason: string): YouTubeUrl {
  return { kind: 'rejected', reason: `Not a YouTube livestream: ${reason}.` };
}
