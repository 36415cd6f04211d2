// Decisions: docs/decisions/0061-atom-feeds.md
import { escapeXml } from '../xml.js';

/** One entry of an Atom feed (RFC 4287), the facts a presenter gives. */
export interface AtomEntry {
  /** A stable IRI: the same item keeps it from one fetch to the next. */
  id: string;
  title: string;
  /** The page that shows the item (`rel="alternate"`). */
  link: string;
  updated: Date;
  published: Date | null;
  author: { name: string; uri: string };
  summary: string;
  /** The file the item is about (`rel="enclosure"`). */
  enclosure: { url: string; length: number; type: string } | null;
  /** Media RSS `media:thumbnail`, which feed readers show as the entry's picture. */
  thumbnail: string | null;
}

export interface AtomFeed {
  id: string;
  title: string;
  subtitle: string;
  /** Where this feed is fetched (`rel="self"`). */
  self: string;
  /** The web page the feed follows (`rel="alternate"`). */
  alternate: string;
  entries: AtomEntry[];
}

/** Feeds with no entries say they were last changed at the epoch: nothing in them ever changed. */
const EMPTY_FEED_UPDATED = new Date(0);

/** The feed as an Atom 1.0 document; the feed's `updated` is its newest entry's. */
export function atomXml(feed: AtomFeed): string {
  const updated = feed.entries.reduce((newest, e) => (e.updated > newest ? e.updated : newest), EMPTY_FEED_UPDATED);
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">',
    element('id', feed.id),
    element('title', feed.title),
    element('subtitle', feed.subtitle),
    element('updated', updated.toISOString()),
    link('self', feed.self, 'application/atom+xml'),
    link('alternate', feed.alternate, 'text/html'),
    element('generator', 'Kura'),
    ...feed.entries.map(entryXml),
    '</feed>',
    '',
  ].join('\n');
}

function entryXml(entry: AtomEntry): string {
  const lines = [
    '<entry>',
    element('id', entry.id),
    element('title', entry.title),
    link('alternate', entry.link, 'text/html'),
    element('updated', entry.updated.toISOString()),
  ];
  if (entry.published !== null) lines.push(element('published', entry.published.toISOString()));
  lines.push(`<author>${element('name', entry.author.name)}${element('uri', entry.author.uri)}</author>`);
  lines.push(`<summary type="text">${escapeXml(entry.summary)}</summary>`);
  if (entry.enclosure !== null) {
    const { url, type, length } = entry.enclosure;
    lines.push(`<link rel="enclosure" href="${escapeXml(url)}" type="${escapeXml(type)}" length="${Math.max(0, Math.round(length))}"/>`);
  }
  if (entry.thumbnail !== null) lines.push(`<media:thumbnail url="${escapeXml(entry.thumbnail)}"/>`);
  lines.push('</entry>');
  return lines.join('\n');
}

function element(name: string, text: string): string {
  return `<${name}>${escapeXml(text)}</${name}>`;
}

function link(rel: string, href: string, type: string): string {
  return `<link rel="${rel}" type="${type}" href="${escapeXml(href)}"/>`;
}
