// Decisions: docs/decisions/0053-follow-signals.md
import type { StreamCandidate } from '../../core/follows/follow.js';
import type { FollowSignal } from '../../core/follows/ports.js';
import { runYtDlp } from '../ytdlp/run-ytdlp.js';
import { failureInWords, YtDlpFailure, troubleOf } from '../ytdlp/ytdlp-trouble.js';
import type { YtDlpProgram } from '../ytdlp/ytdlp-program.js';
import { channelIdOf, VIDEO_ID, youTubeCandidate } from './youtube-candidate.js';

export interface YouTubeTabsOptions {
  /** The yt-dlp to run (YTDLP_PATH; its cookies only for a run YouTube refuses without). */
  ytdlp: YtDlpProgram;
}

/** The part of `yt-dlp -J --flat-playlist` output of a channel tab Kura reads. */
interface FlatEntry {
  id?: unknown;
  title?: unknown;
  live_status?: unknown;
  release_timestamp?: unknown;
  availability?: unknown;
}

/**
 * Upcoming and live streams come first on the tab; one page (30 entries) holds them, and a bound
 * keeps yt-dlp from paging through years of past streams.
 */
const TAB_ENTRIES = '1:30';

/**
 * A yt-dlp look at a channel's live/upcoming tab (`/streams`): catches what the feed drops, and
 * says what the feed does not (live or upcoming, the scheduled start, members-only: a flat listing
 * names them without cookies). Throws a YtDlpFailure saying what YouTube did (rate limits, bot
 * checks) before yt-dlp's reason, which the follow's health shows.
 */
export function createYouTubeTabsSignal({ ytdlp }: YouTubeTabsOptions): FollowSignal {
  return {
    name: 'tabs',
    host: () => 'www.youtube.com',
    async look(follow) {
      const url = `https://www.youtube.com/channel/${channelIdOf(follow)}/streams`;
      const answer = await runYtDlp(ytdlp, ['-J', '--flat-playlist', '--playlist-items', TAB_ENTRIES, '--', url]).catch((error: unknown) => {
        throw new YtDlpFailure(troubleOf(error), failureInWords(error));
      });
      return readStreamsTab(answer.json);
    },
  };
}

/** The upcoming and live streams of a channel tab as yt-dlp lists it flat. */
export function readStreamsTab(json: unknown): StreamCandidate[] {
  const entries = (json as { entries?: unknown } | null)?.entries;
  if (!Array.isArray(entries)) throw new Error('yt-dlp listed no entries for the channel’s streams tab');
  return (entries as FlatEntry[]).flatMap((entry) => {
    const live = entry.live_status === 'is_live' ? 'live' : entry.live_status === 'is_upcoming' ? 'upcoming' : null;
    if (live === null || typeof entry.id !== 'string' || !VIDEO_ID.test(entry.id)) return [];
    return [
      youTubeCandidate(entry.id, {
        title: typeof entry.title === 'string' ? entry.title : null,
        liveStatus: live,
        scheduledStart: typeof entry.release_timestamp === 'number' ? new Date(entry.release_timestamp * 1000) : null,
        // a flat entry says `subscriber_only` for a members-only stream, and null when it does not know
        membersOnly: entry.availability === 'subscriber_only' ? true : null,
      }),
    ];
  });
}
