// Decisions: docs/decisions/0070-youtube-fragments-from-the-first.md
import type { FragmentedStream, FragmentFormat } from '../../core/sources/ports.js';

/** A format as `yt-dlp -J --live-from-start` lists it (the fields Kura reads). */
export interface YtDlpFormat {
  format_id?: string;
  url?: string;
  protocol?: string;
  is_from_start?: boolean;
  target_duration?: number | null;
  /** The format's itag as yt-dlp keeps it for a live or post-live adaptive format. */
  _itag?: string;
  ext?: string;
  vcodec?: string;
  acodec?: string;
  width?: number | null;
  height?: number | null;
  fps?: number | null;
  tbr?: number | null;
}

/** At equal height and frame rate: H.264 first (every browser plays it, and hls.js while it is recorded), then VP9, then AV1. */
const VIDEO_CODECS = [/^(avc|h264)/i, /^vp0?9/i, /^av0?1/i];
/** AAC first (an MP4's usual audio, in every player), then Opus. */
const AUDIO_CODECS = [/^mp4a|^aac/i, /^opus/i];

/**
 * The adaptive formats a stream's fragments can be recorded in from the first: while live, those
 * yt-dlp marks `is_from_start`; once ended (post_live), the same formats with their fragments
 * listed (`http_dash_segments`, the mark removed: `_prepare_live_from_start_formats`), which keep
 * their `target_duration` and `_itag`.
 */
export function fragmentFormatsOf(formats: readonly YtDlpFormat[]): { formats: FragmentFormat[]; fragmentSeconds: number | null } {
  const numbered = (f: YtDlpFormat) =>
    f.is_from_start === true || (f.protocol === 'http_dash_segments' && typeof f._itag === 'string' && (f.target_duration ?? 0) > 0);
  const fromStart = formats.filter((f) => numbered(f) && typeof f.url === 'string' && typeof f.format_id === 'string');
  const seconds = fromStart.map((f) => f.target_duration).find((d): d is number => typeof d === 'number' && d > 0) ?? null;
  return {
    fragmentSeconds: seconds,
    formats: fromStart.map((f) => ({
      id: f.format_id as string,
      url: f.url as string,
      mime: `${f.vcodec !== undefined && f.vcodec !== 'none' ? 'video' : 'audio'}/${f.ext === 'm4a' ? 'mp4' : (f.ext ?? 'mp4')}`,
      codec: (f.vcodec !== undefined && f.vcodec !== 'none' ? f.vcodec : f.acodec) ?? 'unknown',
      width: f.width ?? null,
      height: f.height ?? null,
      fps: f.fps ?? null,
      bitrate: Math.round((f.tbr ?? 0) * 1000),
    })),
  };
}

const isVideo = (format: FragmentFormat) => format.mime.startsWith('video/');
const rank = (codecs: readonly RegExp[], codec: string) => {
  const index = codecs.findIndex((pattern) => pattern.test(codec));
  return index === -1 ? codecs.length : index;
};

/**
 * The video and audio to record: the tallest video at or under the quality asked for (`720p`;
 * any for null or `best`; the smallest when none is that small), then the highest frame rate,
 * then the codec order above, then the higher bitrate; and the best audio. Undefined when the
 * stream offers no video or no audio in fragments.
 */
export function pickFragmentFormats(offered: readonly FragmentFormat[], fragmentSeconds: number | null, quality: string | null): FragmentedStream | undefined {
  const videos = offered
    .filter(isVideo)
    .sort(
      (a, b) =>
        (b.height ?? 0) - (a.height ?? 0) || (b.fps ?? 0) - (a.fps ?? 0) || rank(VIDEO_CODECS, a.codec) - rank(VIDEO_CODECS, b.codec) || b.bitrate - a.bitrate,
    );
  const audios = offered.filter((f) => !isVideo(f)).sort((a, b) => rank(AUDIO_CODECS, a.codec) - rank(AUDIO_CODECS, b.codec) || b.bitrate - a.bitrate);
  const height = quality?.match(/^(\d{3,4})p$/)?.[1];
  const smallest = videos.find((v) => v.height === videos.at(-1)?.height);
  const video = height === undefined ? videos[0] : (videos.find((v) => v.height !== null && v.height <= Number(height)) ?? smallest);
  const audio = audios[0];
  if (video === undefined || audio === undefined || fragmentSeconds === null) return undefined;
  return { video, audio, fragmentSeconds, offered: [...offered] };
}
