// Decisions: docs/decisions/0053-follow-signals.md
import type { StreamCandidate } from '../../core/follows/follow.js';
import type { FollowSignal } from '../../core/follows/ports.js';
import type { Fetcher } from '../sources/http-fetch.js';
import { VIDEO_ID, youTubeCandidate } from './youtube-candidate.js';

export interface HolodexOptions {
  fetcher: Fetcher;
  /** KURA_HOLODEX_URL: `https://holodex.net/api/v2`. */
  baseUrl: string;
  /** HOLODEX_API_KEY, sent as `X-APIKEY`. */
  apiKey: string;
}

/** The part of a Holodex v2 video Kura reads. */
interface HolodexVideo {
  id?: unknown;
  title?: unknown;
  status?: unknown;
  start_scheduled?: unknown;
  /** Holodex files members-only streams under the topic `membersonly`. */
  topic_id?: unknown;
  channel?: { id?: unknown; name?: unknown } | null;
}

/** How far ahead Holodex is asked for upcoming streams; the follow's own horizon decides what is queued. */
const MAX_UPCOMING_HOURS = 48;

/**
 * An organisation's or topic's upcoming and live streams, from Holodex's `/live` (as the service
 * Kura replaces queued them). Throws an Error with the reason (HTTP status, not a list).
 */
export function createHolodexSignal({ fetcher, baseUrl, apiKey }: HolodexOptions): FollowSignal {
  const host = new URL(baseUrl).host;
  return {
    name: 'holodex',
    host: () => host,
    async look(follow) {
      const [, filter, name] = /^holodex:(org|topic)\/(.+)$/.exec(follow.url) ?? [];
      if (filter === undefined || name === undefined) throw new Error(`${follow.url} is not holodex:org/NAME or holodex:topic/NAME`);
      const url = `${baseUrl.replace(/\/+$/, '')}/live?${filter}=${encodeURIComponent(decoded(name))}&status=upcoming,live&type=stream&max_upcoming_hours=${MAX_UPCOMING_HOURS}`;
      const body = await fetcher.text(url, { headers: { 'x-apikey': apiKey } });
      return readHolodexLive(body);
    },
  };
}

/** The YouTube streams of a Holodex `/live` answer (a JSON array of videos). */
export function readHolodexLive(body: string): StreamCandidate[] {
  let videos: unknown;
  try {
    videos = JSON.parse(body);
  } catch {
    throw new Error('Holodex answered something other than JSON');
  }
  if (!Array.isArray(videos)) throw new Error('Holodex answered something other than a list of videos');
  return (videos as HolodexVideo[]).flatMap((video) => {
    if (typeof video.id !== 'string' || !VIDEO_ID.test(video.id)) return []; // not a YouTube video
    const start = typeof video.start_scheduled === 'string' ? new Date(video.start_scheduled) : null;
    return [
      youTubeCandidate(video.id, {
        title: typeof video.title === 'string' ? video.title : null,
        liveStatus: video.status === 'live' ? 'live' : video.status === 'upcoming' ? 'upcoming' : 'unknown',
        scheduledStart: start !== null && !Number.isNaN(start.getTime()) ? start : null,
        membersOnly: video.topic_id === 'membersonly' ? true : null,
        ...(typeof video.channel?.id === 'string' ? { channelId: video.channel.id } : {}),
        ...(typeof video.channel?.name === 'string' ? { channelName: video.channel.name } : {}),
      }),
    ];
  });
}

/** `Phase%20Connect` and `Phase Connect` name the same organisation. */
function decoded(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
