import type { LivestreamRecord } from '../livestreams/record.schema.js';

/** The placeholder in web/index.html that the server fills with a page's head tags. */
export const HEAD_PLACEHOLDER = '<!--kura:head-->';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an HTML attribute value or element content. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : `${m} min`;
}

/** Open Graph and Twitter tags for an archive page, so a shared link previews without JavaScript. */
export function archiveHead(record: LivestreamRecord, pageUrl: string): string {
  const facts = [record.channelName, record.scheduledStart.slice(0, 10)];
  if (record.length !== undefined) facts.push(duration(record.length));
  facts.push(record.finished ? 'archived on Kura' : `${record.status} on Kura`);
  const description = facts.filter((f) => f !== '').join(' · ');
  const tags: Array<[string, string]> = [
    ['og:type', 'video.other'],
    ['og:site_name', 'Kura'],
    ['og:title', record.title || record.id],
    ['og:description', description],
    ['og:url', pageUrl],
  ];
  if (record.thumbnail !== '') tags.push(['og:image', record.thumbnail]);
  if (record.downloadUrl !== undefined) tags.push(['og:video', record.downloadUrl], ['og:video:type', 'video/mp4']);
  const meta = tags.map(([property, content]) => `<meta property="${property}" content="${escapeHtml(content)}">`);
  meta.push(`<meta name="twitter:card" content="${record.thumbnail !== '' ? 'summary_large_image' : 'summary'}">`);
  meta.push(`<meta name="description" content="${escapeHtml(description)}">`);
  meta.push(`<link rel="canonical" href="${escapeHtml(pageUrl)}">`);
  return `<title>${escapeHtml(record.title || record.id)} · Kura</title>\n${meta.join('\n')}`;
}
