import { XMLParser } from 'fast-xml-parser';
import type { StreamCandidate } from '../../core/follows/follow.js';
import type { FollowSignal } from '../../core/follows/ports.js';
import type { Fetcher } from '../sources/http-fetch.js';
import { channelIdOf, VIDEO_ID, youTubeCandidate } from './youtube-candidate.js';

export interface YouTubeFeedOptions {
  fetcher: Fetcher;
  /** KURA_YOUTUBE_FEED_URL: `https://www.youtube.com/feeds/videos.xml`; `?channel_id=UC…` is added. */
  feedUrl: string;
}

/** The part of a feed `<entry>` Kura reads (texts kept as strings: a title `2024` stays a string). */
interface FeedEntry {
  id?: unknown;
  'yt:videoId'?: unknown;
  title?: unknown;
}

const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, isArray: (_name, jpath) => jpath === 'feed.entry' });

/**
 * A channel's public Atom feed (its latest 15 videos, streams among them): cheap to poll, but it
 * says nothing of a video's live state or audience, and it drops entries at times; the tabs
 * signal makes up for both. Throws an Error with the reason (HTTP status, not a feed).
 */
export function createYouTubeFeedSignal({ fetcher, feedUrl }: YouTubeFeedOptions): FollowSignal {
  const host = new URL(feedUrl).host;
  return {
    name: 'feed',
    host: () => host,
    async look(follow) {
      const url = new URL(feedUrl);
      url.searchParams.set('channel_id', channelIdOf(follow));
      return readYouTubeFeed(await fetcher.text(url.href));
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
    return [youTubeCandidate(id, { title: text(entry.title) ?? null, liveStatus: 'unknown', membersOnly: null, scheduledStart: null })];
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value.trim() : undefined;
}
