// Decisions: docs/decisions/0062-web-ui-svelte-vite.md
import { clockOf, linkTimeOf } from '../../core/time-text.js';
import type { Channel } from '../channels/channels.schema.js';
import type { LivestreamRecord } from '../livestreams/record.schema.js';
import type { PageText } from './page-messages.js';

/** The placeholder in web/index.html that the server fills with a page's head tags. */
export const HEAD_PLACEHOLDER = '<!--kura:head-->';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an HTML attribute value or element content. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

const hoursAndMinutes = (seconds: number) => ({ hours: Math.floor(seconds / 3600), minutes: Math.floor((seconds % 3600) / 60) });

/** `2 h 5 min` or `12 min`, for a feed's description. */
export function duration(seconds: number): string {
  const { hours, minutes } = hoursAndMinutes(seconds);
  return hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min`;
}

/** A length in a page's language: `2 h 5 min`, `2時間5分`. */
function pageDuration(text: PageText, seconds: number): string {
  const { hours, minutes } = hoursAndMinutes(seconds);
  return hours > 0 ? text('page_duration_hours', { hours, minutes }) : text('page_duration_minutes', { minutes });
}

/** What a record is on Kura, by its status: the end of its link preview's description. */
const ON_KURA: Record<LivestreamRecord['status'], string> = {
  upcoming: 'page_upcoming_on_kura',
  live: 'page_live_on_kura',
  finished: 'page_archived_on_kura',
  failed: 'page_failed_on_kura',
};

/**
 * Open Graph and Twitter tags for an archive page, so a shared link previews without JavaScript.
 * A link to a moment (`atSeconds`, its `?t=`) says so: its og:url keeps the time (in one form,
 * `?t=1h02m03s`), its description begins `From 1:02:03`, and its og:video carries the media
 * fragment `#t=3723`, which a preview playing the file itself starts from and the server never
 * sees; the canonical link stays the page without the time, one page for every moment of it.
 */
export function archiveHead(record: LivestreamRecord, pageUrl: string, atSeconds: number | null, text: PageText): string {
  const facts = [record.channelName, record.scheduledStart.slice(0, 10)];
  if (atSeconds !== null) facts.unshift(text('page_from', { time: clockOf(atSeconds) }));
  if (record.length !== undefined) facts.push(pageDuration(text, record.length));
  facts.push(text(ON_KURA[record.status]));
  const media: Array<[string, string]> = [];
  if (record.thumbnail !== '') media.push(['og:image', record.thumbnail]);
  if (record.downloadUrl !== undefined) {
    // an archive kept elsewhere may have a fragment of its own, which stays as it is
    const fragment = atSeconds === null || record.downloadUrl.includes('#') ? '' : `#t=${Math.floor(atSeconds)}`;
    media.push(['og:video', record.downloadUrl + fragment], ['og:video:type', 'video/mp4']);
  }
  const description = facts.filter((f) => f !== '').join(' · ');
  const shared = atSeconds === null ? pageUrl : `${pageUrl}?t=${linkTimeOf(atSeconds)}`;
  return pageHead({
    type: 'video.other',
    title: record.title || record.id,
    description,
    pageUrl: shared,
    canonicalUrl: pageUrl,
    media,
    largeImage: record.thumbnail !== '',
  });
}

/** Open Graph and Twitter tags for a channel's page: its name, and what of it is archived. */
export function channelHead(channel: Channel, pageUrl: string, text: PageText): string {
  const facts = [text('page_channel_archives', { count: channel.archives })];
  if (channel.totalLength > 0) facts.push(text('page_channel_video_length', { length: pageDuration(text, channel.totalLength) }));
  if (channel.upcoming > 0) facts.push(text('page_channel_upcoming', { count: channel.upcoming }));
  facts.push(text('page_on_kura'));
  const name = channel.channelName || channel.channelId;
  const feed = `/feeds/archives.atom?channelId=${encodeURIComponent(channel.channelId)}`;
  const head = pageHead({ type: 'website', title: name, description: facts.join(' · '), pageUrl, canonicalUrl: pageUrl, media: [], largeImage: false });
  return `${head}\n<link rel="alternate" type="application/atom+xml" title="${escapeHtml(text('page_channel_feed', { name }))}" href="${escapeHtml(feed)}">`;
}

interface PageFacts {
  type: string;
  title: string;
  description: string;
  /** The page as shared (og:url). */
  pageUrl: string;
  /** The page as search engines should index it. */
  canonicalUrl: string;
  /** og:image, og:video… tags, after the page's own. */
  media: Array<[string, string]>;
  largeImage: boolean;
}

function pageHead(page: PageFacts): string {
  const tags: Array<[string, string]> = [
    ['og:type', page.type],
    ['og:site_name', 'Kura'],
    ['og:title', page.title],
    ['og:description', page.description],
    ['og:url', page.pageUrl],
    ...page.media,
  ];
  const meta = tags.map(([property, content]) => `<meta property="${property}" content="${escapeHtml(content)}">`);
  meta.push(`<meta name="twitter:card" content="${page.largeImage ? 'summary_large_image' : 'summary'}">`);
  meta.push(`<meta name="description" content="${escapeHtml(page.description)}">`);
  meta.push(`<link rel="canonical" href="${escapeHtml(page.canonicalUrl)}">`);
  return `<title>${escapeHtml(page.title)} · Kura</title>\n${meta.join('\n')}`;
}
