// Research: docs/research/youtube-live-contract.md §2.3, §2.5, §7 (the stand-ins' knobs)
// The formats the yt-dlp STAND-IN (test/support/bin/yt-dlp-stand-in.mjs) lists: live HLS (muxed,
// split or none), live adaptive from the start, post_live's materialised fragments.
import { googlevideoUrl } from './googlevideo-url.mjs';

/** YouTube's quality names, in yt-dlp's order (`quality` is the index): 144p tiny … 1080p hd1080. */
const QUALITIES = [
  'tiny',
  'audio_quality_ultralow',
  'audio_quality_low',
  'audio_quality_medium',
  'audio_quality_high',
  'small',
  'medium',
  'large',
  'hd720',
  'hd1080',
];
const QUALITY_OF_HEIGHT = { 144: 'tiny', 240: 'small', 360: 'medium', 480: 'large', 720: 'hd720', 1080: 'hd1080' };
/** One live adaptive format as `yt-dlp -J --live-from-start` lists it (process_format_stream + _prepare_live_from_start_formats). */
export function adaptiveFormat(id, adaptive, format) {
  const video = format.mime.startsWith('video/');
  const webm = format.mime.endsWith('/webm');
  const ext = webm ? 'webm' : video ? 'mp4' : 'm4a';
  const quality = video ? (QUALITY_OF_HEIGHT[format.height] ?? 'hd1080') : 'audio_quality_medium';
  const itag = String(format.itag);
  return {
    format_id: itag,
    format_note: video ? `${format.height}p${format.fps > 30 ? format.fps : ''}` : 'medium',
    ...(video ? {} : { asr: 48000, audio_channels: 2 }),
    filesize: null,
    source_preference: -1,
    fps: format.fps,
    height: format.height,
    width: format.width,
    quality: QUALITIES.indexOf(quality),
    has_drm: false,
    tbr: format.tbr,
    language: null,
    language_preference: -1,
    ext,
    vcodec: video ? format.codecs : 'none',
    acodec: video ? 'none' : format.codecs,
    ...(video ? { dynamic_range: 'SDR' } : {}),
    container: `${webm ? 'webm' : video ? 'mp4' : 'm4a'}_dash`,
    downloader_options: { http_chunk_size: 10485760 },
    url: googlevideoUrl(adaptive, format.itag),
    is_from_start: true,
    target_duration: adaptive.targetSeconds,
    _itag: itag,
    _client: 'web',
    is_live: true,
    // sanitize_info prints the generator's functools.partial as its repr()
    fragments: `functools.partial(<bound method YoutubeIE._live_adaptive_fragments of <yt_dlp.extractor.youtube._video.YoutubeIE object at 0x7f3a1c2b4e50>>, '${id}', '${itag}', 'web', ${Math.floor(Date.now() / 1000)}, <function YoutubeIE._prepare_live_from_start_formats.<locals>.url_feed at 0x7f3a1c0d8fe0>, None, ${adaptive.targetSeconds}, {})`,
    protocol: 'http_dash_segments_generator',
    video_ext: video ? ext : 'none',
    audio_ext: video ? 'none' : ext,
    vbr: video ? format.tbr : 0,
    abr: video ? 0 : format.tbr,
    resolution: video ? `${format.width}x${format.height}` : 'audio only',
    format: video ? `${itag} - ${format.width}x${format.height} (${format.height}p)` : `${itag} - audio only (medium)`,
  };
}

/**
 * A post_live format (`_prepare_live_from_start_formats`, `not is_live`): the adaptive format with
 * `protocol: http_dash_segments`, `is_live: false`, no `is_from_start`, and `fragments` the list the
 * generator yields once (`0 … head − 2`, or the last 120 hours' worth when the stream began more than
 * 432000 s ago).
 */
export function postLiveFormat(id, adaptive, format, url, fragmentsOf) {
  const { is_from_start: _dropped, fragments: _generator, ...live } = adaptiveFormat(id, adaptive, format);
  return { ...live, url, is_live: false, fragments: fragmentsOf(url), protocol: 'http_dash_segments' };
}

/** `_live_adaptive_fragments` without a url_feed: `{url: base&sq=N, fragment_count}` for N from `first` to head − 2. */
export function postLiveFragments(baseUrl, head, first) {
  if (head === null) return [];
  const count = head - 1;
  const fragments = [];
  for (let sq = Math.max(0, first); sq < count; sq++) {
    const url = new URL(baseUrl);
    url.searchParams.set('sq', String(sq));
    fragments.push({ url: url.toString(), fragment_count: count });
  }
  return fragments;
}

const HLS_VIDEO = [
  { itag: '229', width: 426, height: 240, tbr: 400, vcodec: 'avc1.4d4015' },
  { itag: '230', width: 640, height: 360, tbr: 800, vcodec: 'avc1.4d401e' },
  { itag: '232', width: 1280, height: 720, tbr: 2500, vcodec: 'avc1.4d401f' },
];

/**
 * A live stream's HLS formats (`_extract_m3u8_formats_and_subtitles`, format_id the `/itag/N/` of
 * the URL): `muxed` one variant with audio (the stand-in's default since it began); `split` the
 * video-only variants and one audio-only rendition, as a master playlist with an EXT-X-MEDIA audio
 * group is listed; `none` nothing.
 */
export function hlsFormats(mode, hlsUrl, hlsAudioUrl) {
  if (mode === 'none') return [];
  if (mode === 'split') {
    const hls = { protocol: 'm3u8_native', ext: 'mp4', source_preference: -1 };
    return [
      { format_id: '234', url: hlsAudioUrl ?? hlsUrl, ...hls, vcodec: 'none', acodec: 'mp4a.40.2', tbr: 128, resolution: 'audio only', format_note: 'medium' },
      ...HLS_VIDEO.map(({ itag, ...video }) => ({ format_id: itag, url: hlsUrl, ...hls, ...video, fps: 30, acodec: 'none', dynamic_range: 'SDR' })),
    ];
  }
  return [{ format_id: '91', url: hlsUrl, protocol: 'm3u8_native', ext: 'mp4', width: 320, height: 180, tbr: 500, vcodec: 'avc1.42c00d', acodec: 'mp4a.40.2' }];
}
