// Decisions: docs/decisions/0133-live-sites-through-yt-dlp.md
import { AppError } from '../../core/errors.js';
import type { CheckAddresses, Inspection, SourceStatus, StreamSource } from '../../core/sources/ports.js';
import { troubleOf } from '../ytdlp/ytdlp-trouble.js';
import type { SiteYtDlp } from '../ytdlp/ytdlp-video.js';
import { pickVariant, qualitiesOf } from './hls-playlist.js';
import type { Fetcher } from './http-fetch.js';
import { broadcastOf, readSiteVideo, recordIdOf, recordUrlOf, type SiteVideo } from './site-video.js';
import { parseYouTubeUrl } from './youtube-url.js';

/** yt-dlp's words for a channel that is not live now (Twitch's and TwitCasting's UserNotLive, Bilibili's, an offline channel's). */
const NOT_LIVE = /is not currently live|streamer is not live|is offline|not currently live|channel is not live/i;
/** yt-dlp's words for a URL no extractor but the generic one takes (which Kura's runs leave out). */
const UNSUPPORTED = /unsupported url|no suitable extractor|is not a valid url/i;
const NOT_A_SITE =
  'Kura records YouTube livestreams, HLS playlists (an http(s) URL ending in .m3u8) and the live streams of the sites yt-dlp opens (Twitch, TwitCasting, …); yt-dlp opens no site at this URL.';
const FOLLOW_IT = 'To record its next stream, follow the channel (Follows).';

/** What a failed look says of a record's broadcast: a channel no longer live has ended it; anything else is a passing trouble. */
function failedLook(error: unknown, broadcast: string | null): SourceStatus {
  const reason = (error as Error).message;
  if (NOT_LIVE.test(reason))
    return broadcast === null ? { state: 'not_live', reason } : { state: 'ended', reason: `the channel is no longer live (${reason})` };
  const trouble = troubleOf(error);
  return { state: 'unknown', trouble: trouble === 'rate_limited' || trouble === 'bot_check' ? trouble : 'failed', reason };
}

/** Why a broadcast that is live offers nothing Kura records, naming what it offers instead. */
function notRecordable(video: SiteVideo): string {
  if (video.otherProtocols.length === 0) return `${video.site} lists no format for this stream.`;
  return `${video.site} offers this stream only as ${video.otherProtocols.join(', ')}, which Kura cannot record: it records HLS it fetches itself.`;
}

/**
 * The live streams of any site yt-dlp opens but YouTube (which has its own source): asked once at
 * submission and at every check, yt-dlp hands out the HLS format of the quality asked for, which
 * the HLS engine records; an expired playlist URL is asked for again the same way. A site whose
 * page is a channel's (Twitch) names the broadcast in the record's URL (`#kura-broadcast=ID`): once
 * the channel is offline, or live with another broadcast, that record's stream has ended.
 */
export function createSiteSource(ytdlp: SiteYtDlp, outbound: { fetcher: Pick<Fetcher, 'refusal'>; checkAddresses: CheckAddresses }): StreamSource {
  const look = async (url: string): Promise<SiteVideo> => {
    const video = readSiteVideo((await ytdlp(url)).json);
    if (video === null) throw new Error('yt-dlp described no broadcast at this URL');
    return video;
  };
  return {
    recognises: (url) => siteUrl(url) !== null,
    async inspect(raw): Promise<Inspection> {
      const url = siteUrl(raw);
      if (url === null) return { kind: 'rejected', reason: NOT_A_SITE };
      // yt-dlp connects by itself: the host is judged first, by its name and where it resolves now
      const refused = outbound.fetcher.refusal(url) ?? (await outbound.checkAddresses(url))?.publicReason ?? null;
      if (refused !== null) return { kind: 'rejected', reason: `Kura will not fetch this source: ${refused}.` };
      let video: SiteVideo;
      try {
        video = await look(broadcastOf(url).page);
      } catch (error) {
        const reason = (error as Error).message;
        if (UNSUPPORTED.test(reason)) return { kind: 'rejected', reason: NOT_A_SITE };
        if (NOT_LIVE.test(reason)) return { kind: 'rejected', reason: `This channel is not live now. ${FOLLOW_IT}` };
        return { kind: 'rejected', reason: `yt-dlp could not open this URL: ${reason}` };
      }
      if (video.liveStatus === 'ended') return { kind: 'rejected', reason: 'This stream has already ended.' };
      if (video.liveStatus === 'not_live') return { kind: 'rejected', reason: `This is not a live stream, or it is not live now. ${FOLLOW_IT}` };
      if (video.liveStatus === 'is_live' && video.variants.length === 0) return { kind: 'rejected', reason: notRecordable(video) };
      return {
        kind: 'accepted',
        platform: video.site === 'twitch' ? 'twitch' : 'site',
        id: recordIdOf(video),
        canonicalUrl: recordUrlOf(video, url),
        details: video.details,
      };
    },
    async qualities(raw) {
      const url = siteUrl(raw);
      if (url === null) throw new AppError('invalid', 'invalid_source', NOT_A_SITE);
      const video = await look(broadcastOf(url).page).catch((error: Error) => {
        throw new AppError('invalid', 'invalid_source', `yt-dlp could not open this URL: ${error.message}`);
      });
      if (video.variants.length === 0) return [{ code: 'best', resolution: 'the best offered once live', best: true }];
      return qualitiesOf(video.variants);
    },
    async check(sourceUrl, quality): Promise<SourceStatus> {
      const { page, broadcast } = broadcastOf(sourceUrl);
      let video: SiteVideo;
      try {
        video = await look(page);
      } catch (error) {
        return failedLook(error, broadcast);
      }
      const { details } = video;
      if (broadcast !== null && video.id !== broadcast) return { state: 'ended', reason: `the channel is live with another broadcast now (${video.id})` };
      if (video.liveStatus === 'is_upcoming') return { state: 'not_yet', reason: 'scheduled', details };
      if (video.liveStatus === 'ended') return { state: 'ended', reason: `${video.site} says the broadcast has ended`, details };
      // the record's URL names its broadcast (its own page, or the mark on a channel's): not live any more is the end of it
      if (video.liveStatus === 'not_live') return { state: 'ended', reason: `${video.site} says the broadcast is not live any more`, details };
      const variant = pickVariant(video.variants, quality);
      if (variant === undefined) return { state: 'not_yet', reason: notRecordable(video), details };
      return { state: 'live', playlistUrl: variant.url, ...(variant.headers ? { playlistHeaders: variant.headers } : {}), details };
    },
  };
}

/** An http(s) URL that is neither YouTube's nor an HLS playlist's (those have sources of their own), without its fragment's broadcast mark; null for anything else. */
function siteUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.pathname.endsWith('.m3u8') || parseYouTubeUrl(raw).kind !== 'not_youtube') return null;
  return url.href;
}
