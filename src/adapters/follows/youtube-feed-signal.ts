// Decisions: docs/decisions/0053-follow-signals.md
import { XMLParser } from 'fast-xml-parser';
import type { StreamCandidate } from '../../core/follows/follow.js';
import type { FollowSignal } from '../../core/follows/ports.js';
import type { Fetcher } from '../sources/http-fetch.js';
import { channelIdOf, VIDEO_ID, youTubeCandidate } from './youtube-candidate.js';

export interface YouTubeFeedOptions {
  fetcher: Fetcher;
  /** KURA_YOUTUBE_FEED_URL: `https://www.youtube.com/feeds/videos.xml`; `?channel_id=UC…` is added. */
  feedUrl: string;
  /** Entries published longer ago than this are left out (default FEED_RECENT_DAYS). */
  recentDays?: number;
  /** The time entries are aged against (tests pin it; default: now). */
  clock?: () => Date;
}

/**
 * Feed entries older than this are not candidates: the feed holds a channel's latest 15 videos,
 * mostly past uploads, and each unknown one would cost a yt-dlp inspection. A stream announced
 * longer ago that is still upcoming or live is on the channel's streams tab, which the tabs
 * signal reads with its live state.
 */
export const FEED_RECENT_DAYS = 7;

/** The part of a feed `<entry>` Kura reads (texts kept as strings: a title `2024` stays a string). */
interface FeedEntry {
  id?: unknown;
  'yt:videoId'?: unknown;
  title?: unknown;
  published?: unknown;
}

const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (_name, jpath) => jpath === 'feed.entry' });

/**
 * A channel's public Atom feed (its latest 15 videos, streams among them): cheap to poll, but it
 * says nothing of a video's live state or audience, and it drops entries at times; the tabs
 * signal makes up for both. Throws an Error with the reason (HTTP status, not a feed).
 */
export function createYouTubeFeedSignal({ fetcher, feedUrl, recentDays = FEED_RECENT_DAYS, clock = () => new Date() }: YouTubeFeedOptions): FollowSignal {
  const host = new URL(feedUrl).host;
  return {
    name: 'feed',
    host: () => host,
    async look(follow) {
      const url = new URL(feedUrl);
      url.searchParams.set('channel_id', channelIdOf(follow));
      const since = clock().getTime() - recentDays * 86_400_000;
      // an entry without a readable date is kept: looking once costs less than missing a stream
      return readYouTubeFeed(await fetcher.text(url.href)).filter((entry) => (entry.publishedAt?.getTime() ?? since) >= since);
    },
  };
}

/** The videos of a YouTube channel feed, newest first as the feed lists them. */
export function readYouTubeFeed(xml: string): StreamCandidate[] {
  let document: { feed?: unknown };
  try {
    document = parser.parse(xml, true) as { feed?: unknown };
  } catch (error) {
    throw new Error(`the YouTube feed is not XML: ${(error as Error).message}`, { cause: error });
  }
  const feed = document.feed;
  if (feed === '') return []; // a channel without videos
  if (typeof feed !== 'object' || feed === null) throw new Error('the YouTube feed is not an Atom feed (no <feed> element)');
  const entries = (feed as { entry?: FeedEntry[] }).entry ?? [];
  return entries.flatMap((entry) => {
    const id = text(entry['yt:videoId']) ?? text(entry.id)?.replace(/^yt:video:/, '');
    if (id === undefined || !VIDEO_ID.test(id)) return [];
    const published = new Date(text(entry.published) ?? '');
    const seen = { title: text(entry.title) ?? null, liveStatus: 'unknown' as const, membersOnly: null, scheduledStart: null };
    return [youTubeCandidate(id, Number.isNaN(published.getTime()) ? seen : { ...seen, publishedAt: published })];
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value.trim() : undefined;
}
