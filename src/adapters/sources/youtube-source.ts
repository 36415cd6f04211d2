// Decisions: docs/decisions/0020-youtube-through-yt-dlp.md, docs/decisions/0088-youtube-ends-only-when-it-says-so.md
import type { SourceStatus, SourceTrouble, StreamSource } from '../../core/sources/ports.js';
import { AppError } from '../../core/errors.js';
import { pickVariant, qualitiesOf, type Variant } from './hls-playlist.js';
import { pickFragmentFormats } from './youtube-formats.js';
import { accessOf, GONE, MEMBERS_ONLY, noAccessReason, readYouTubeVideo, type YouTubeVideo } from './youtube-video.js';
import { parseYouTubeUrl } from './youtube-url.js';
import { troubleOf } from '../ytdlp/ytdlp-trouble.js';
import { warningKindOf, warningsInShort } from '../ytdlp/ytdlp-warnings.js';
import type { YtDlp } from '../ytdlp/ytdlp-video.js';
import { FetchError, type Fetcher } from './http-fetch.js';

export { createYtDlp, type YtDlp } from '../ytdlp/ytdlp-video.js';

/**
 * What a failed look says: a video removed or made private is gone, one Kura may not open refuses
 * it; anything else (a rate limit, a bot check, a time-out, a network fault) is a passing trouble,
 * never an end (decision 0088).
 */
function failedLook(error: unknown): SourceStatus {
  const reason = (error as Error).message;
  if (GONE.test(reason)) return { state: 'gone', reason };
  if (MEMBERS_ONLY.test(reason)) return { state: 'no_access', reason };
  const trouble = troubleOfLook(error);
  return {
    state: 'unknown',
    trouble,
    reason:
      trouble === 'rate_limited'
        ? `YouTube rate-limits Kura: ${reason}`
        : trouble === 'bot_check'
          ? `YouTube asks Kura to prove it is no bot: ${reason}`
          : reason,
  };
}

/** The trouble a failed yt-dlp run names, as a source's trouble. */
function troubleOfLook(error: unknown): SourceTrouble {
  const trouble = troubleOf(error);
  return trouble === 'rate_limited' || trouble === 'bot_check' ? trouble : 'failed';
}

/**
 * A look without a live status: with --ignore-no-formats-error, YouTube's refusals (a bot check,
 * "This content isn't available, try again later") come as warnings and JSON without
 * videoDetails, so without `live_status`: a passing trouble, named by its warning.
 */
function noStatus(found: YouTubeVideo): SourceStatus {
  const kinds = found.warnings.map(warningKindOf);
  const trouble: SourceTrouble = kinds.includes('bot_check') ? 'bot_check' : kinds.includes('rate_limited') ? 'rate_limited' : 'no_status';
  return { state: 'unknown', trouble, reason: withWarnings('yt-dlp gave no live status for the video', found.warnings), details: found.details };
}

/** A reason with what yt-dlp's meaningful warnings say, in short. */
function withWarnings(reason: string, warnings: readonly string[]): string {
  const said = warningsInShort(warnings);
  return said === null ? reason : `${reason} (yt-dlp: ${said})`;
}

/** Why a live stream offers nothing Kura can record: no formats from the start, and no HLS rendition with both video and audio. */
function noFallbackReason(found: YouTubeVideo, fromHls: YouTubeVideo | null): string {
  const start = `live, but YouTube offers no video and audio formats from the stream's start (${found.fragments.formats.length} adaptive formats listed)`;
  if (fromHls === null) return `${start}, and the look at its HLS formats failed`;
  if (fromHls.formatCount === 0) return `${start}, and no HLS format either`;
  return `${start}, and its HLS formats carry video and audio apart (${fromHls.formatCount} listed, none muxed), which Kura's HLS path cannot record together`;
}

/** How the source looks at videos: through yt-dlp, with or without cookies. */
function youTubeLooks(ytdlp: YtDlp) {
  const video = async (url: string, fromStart = true): Promise<YouTubeVideo> => {
    const answer = await ytdlp(url, { fromStart });
    return { ...readYouTubeVideo(answer.json), warnings: answer.warnings };
  };
  const cookies = ytdlp.cookies === true;
  /** One look at a video: yt-dlp's answer from the stream's start, and its HLS look, run once and only when asked for. */
  const look = async (url: string) => {
    const found = await video(url);
    let hls: Promise<YouTubeVideo | null> | null = null;
    return { found, hls: () => (hls ??= video(url, false).catch(() => null)) };
  };
  // a live stream that lists no format from its start may still be open to Kura: its HLS look says
  const accessNeeded = async ({ found, hls }: Awaited<ReturnType<typeof look>>) => {
    const need = accessOf(found, cookies);
    if (need === null || found.liveStatus !== 'is_live') return need;
    const fromHls = await hls();
    return fromHls === null ? need : accessOf(fromHls, cookies);
  };
  return { cookies, look, accessNeeded };
}

type YouTubeLooks = ReturnType<typeof youTubeLooks>;

/**
 * YouTube livestreams through yt-dlp (`YTDLP_PATH`): details and live state at submission and at
 * every check, and the HLS playlist of the requested quality once live. The playlist URL yt-dlp
 * hands out expires after some hours; the capture asks again (see the recorder) when it does.
 */
export function createYouTubeSource(ytdlp: YtDlp, fetcher?: Pick<Fetcher, 'withHeaders'>): StreamSource {
  const looks = youTubeLooks(ytdlp);
  const { cookies, look, accessNeeded } = looks;
  return {
    recognises: (url) => parseYouTubeUrl(url).kind !== 'not_youtube',
    async inspect(url) {
      const parsed = parseYouTubeUrl(url);
      if (parsed.kind !== 'video') return { kind: 'rejected', reason: parsed.kind === 'rejected' ? parsed.reason : 'Not a YouTube URL.' };
      let looked: Awaited<ReturnType<typeof look>>;
      try {
        looked = await look(parsed.canonicalUrl);
      } catch (error) {
        const reason = `YouTube did not describe this video: ${(error as Error).message}`;
        return MEMBERS_ONLY.test(reason) ? { kind: 'rejected', reason, membersOnly: true } : { kind: 'rejected', reason };
      }
      const { found } = looked;
      const need = await accessNeeded(looked);
      if (need !== null)
        return { kind: 'rejected', reason: noAccessReason(need, cookies), ...(need === 'members_only' ? { membersOnly: true } : { signIn: true }) };
      // no status (a bot check or a rate limit yt-dlp was told to ignore): not a verdict on the video, try again later
      if (found.liveStatus === 'unknown')
        return { kind: 'rejected', reason: `YouTube did not say what this video is now: ${noStatus(found).reason}; try again later.` };
      if (found.liveStatus === 'was_live') return { kind: 'rejected', reason: 'This livestream has already ended and YouTube has processed its video.' };
      // post_live: ended, its fragments still served until the video is processed: archived whole
      const recordable = found.liveStatus === 'post_live' ? found.fragments.formats.length > 0 : true;
      if (!recordable) return { kind: 'rejected', reason: 'This livestream has already ended, and YouTube no longer serves its fragments.' };
      if (!['is_upcoming', 'is_live', 'post_live'].includes(found.liveStatus)) return { kind: 'rejected', reason: 'This video is not a livestream.' };
      return { kind: 'accepted', platform: 'youtube', id: parsed.videoId, canonicalUrl: parsed.canonicalUrl, details: found.details };
    },
    async qualities(url) {
      const parsed = parseYouTubeUrl(url);
      if (parsed.kind !== 'video') throw new AppError('invalid', 'invalid_source', parsed.kind === 'rejected' ? parsed.reason : 'Not a YouTube URL.');
      const { found, hls } = await look(parsed.canonicalUrl).catch((error: Error) => {
        throw new AppError('invalid', 'invalid_source', `YouTube did not describe this video: ${error.message}`);
      });
      // an upcoming stream lists its formats only once live: the best of them is what it will be
      const videos: Variant[] = found.fragments.formats
        .filter((f) => f.mime.startsWith('video/'))
        .map((f) => ({ url: f.url, bandwidth: f.bitrate, width: f.width, height: f.height }));
      if (videos.length > 0) return qualitiesOf(videos);
      const fromHls = found.liveStatus === 'is_live' ? await hls() : null;
      if (fromHls === null || fromHls.variants.length === 0) return [{ code: 'best', resolution: 'the best offered once live', best: true }];
      return qualitiesOf(fromHls.variants);
    },
    async check(sourceUrl, quality, options = {}): Promise<SourceStatus> {
      const status = await statusOf(looks, sourceUrl, quality, options);
      if (options.newest !== true || status.fragments === undefined || fetcher === undefined) return status;
      const newest = await newestFragment(fetcher, status.fragments.video.url);
      return newest === null ? status : { ...status, newestFragment: newest };
    },
  };
}

/** A video's state as a check reports it, from one look (and its HLS look when the formats from its start fail). */
async function statusOf(looks: YouTubeLooks, sourceUrl: string, quality: string | null, options: { fragments?: boolean }): Promise<SourceStatus> {
  const { look, accessNeeded, cookies } = looks;
  let looked: Awaited<ReturnType<typeof look>>;
  try {
    looked = await look(sourceUrl);
  } catch (error) {
    return failedLook(error);
  }
  const { found } = looked;
  const { details } = found;
  const need = await accessNeeded(looked);
  // a live stream Kura cannot open would otherwise look like one whose formats are not offered yet
  if (need !== null) return { state: 'no_access', reason: noAccessReason(need, cookies), details };
  const pick = () => (options.fragments === false ? undefined : pickFragmentFormats(found.fragments.formats, found.fragments.fragmentSeconds, quality));
  switch (found.liveStatus) {
    case 'is_upcoming':
      return { state: 'not_yet', reason: 'scheduled', details };
    case 'is_live':
      break;
    case 'post_live': {
      // ended, its fragments still served until the VOD is processed: recordable whole
      const fragments = pick();
      const reason = 'the broadcast has ended (post_live)';
      return fragments === undefined ? { state: 'ended', reason, details } : { state: 'ended', reason, fragments, details };
    }
    case 'was_live':
      return { state: 'ended', reason: 'the broadcast has ended and its video is processed (was_live)', details };
    case 'not_live':
      return { state: 'not_live', reason: 'YouTube says the video is not live (not_live)', details };
    default:
      return noStatus(found);
  }
  const fragments = pick();
  if (fragments !== undefined) return { state: 'live', fragments, details };
  // the fallback: from the live edge's window, through the HLS formats yt-dlp lists without --live-from-start
  const fromHls = await looked.hls();
  const variant = fromHls === null ? undefined : pickVariant(fromHls.variants, quality);
  if (variant === undefined)
    return { state: 'not_yet', reason: withWarnings(noFallbackReason(found, fromHls), [...found.warnings, ...(fromHls?.warnings ?? [])]), details };
  const fragmentsRefused = `YouTube offers no video and audio formats from the stream's start (${found.fragments.formats.length} adaptive formats listed); recording from the live edge's window through HLS`;
  return { state: 'live', playlistUrl: variant.url, fragmentsRefused, details };
}

/**
 * The newest fragment a format's URL serves: YouTube names it in `X-Head-Seqnum` of any answer,
 * asked here without a fragment number (yt-dlp's and ytarchive's probe); null when it does not say.
 */
async function newestFragment(fetcher: Pick<Fetcher, 'withHeaders'>, url: string): Promise<number | null> {
  try {
    const { headers } = await fetcher.withHeaders(url, { method: 'HEAD', maxBytes: 0 });
    const value = headers['x-head-seqnum'];
    const head = Number(Array.isArray(value) ? value[0] : value);
    return Number.isInteger(head) && head >= 0 ? head : null;
  } catch (error) {
    if (error instanceof FetchError) return null;
    throw error;
  }
}
