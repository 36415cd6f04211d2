// The STAND-IN yt-dlp's answers for live sites other than YouTube (test/support/bin/yt-dlp-stand-in.mjs
// hands every other URL here), as yt-dlp's extractors answer them (docs/research/live-sites-contract.md
// §1, from yt_dlp/extractor/twitch.py, twitcasting.py and niconico.py). The state file's `sites`:
// {"twitch": {"LOGIN": {"live", "type": "live"|"rerun", "streamId", "displayName", "title",
//  "startedAt", "hlsUrl", "height", "thumbnailUrl"}}, "twitcasting": {"USER": {"live", "movieId",
//  "title", "hlsUrl", "websocket": true}}, "niconico": {"lvN": {"title", "channelId"}}}; a login or user
//  the state does not list does not exist. A URL no site takes is answered as yt-dlp answers it:
//  by the generic extractor's refusal, or, with `--use-extractors default,-generic`, by none.

const TWITCH = /^https?:\/\/(?:(?:www|go|m)\.)?twitch\.tv\/([^/#?]+)/;
const TWITCASTING = /^https?:\/\/(?:[^/?#]+\.)?twitcasting\.tv\/([^/?#]+)\/?(?:[#?]|$)/;
const TWITCASTING_MOVIE = /^https?:\/\/(?:[^/?#]+\.)?twitcasting\.tv\/([^/?#]+)\/(?:movie|twplayer)\/(\d+)/;
const NICONICO_LIVE = /^https?:\/\/(?:sp\.)?live2?\.nicovideo\.jp\/(?:watch|gate)\/(lv\d+)/;

/** `{json}` as `yt-dlp -J` prints it, or `{error}`: the ERROR line's words. */
export function siteAnswer(url, sites = {}, args = []) {
  const twitch = TWITCH.exec(url);
  if (twitch) return twitchAnswer(twitch[1].toLowerCase(), sites.twitch ?? {}, url);
  const twitcasting = TWITCASTING.exec(url);
  if (twitcasting) return twitcastingAnswer(twitcasting[1], sites.twitcasting ?? {}, url);
  const movie = TWITCASTING_MOVIE.exec(url);
  if (movie) return twitcastingAnswer(movie[1], sites.twitcasting ?? {}, url, Number(movie[2]));
  const niconico = NICONICO_LIVE.exec(url);
  if (niconico) return niconicoAnswer(niconico[1], sites.niconico ?? {}, url);
  // YoutubeDL.extract_info: no extractor suitable once the generic one is left out
  const ies = args.includes('--use-extractors') ? args[args.indexOf('--use-extractors') + 1] : 'default';
  if (ies.split(',').includes('-generic')) return { error: `No suitable extractor found for URL ${url}` };
  return { error: `Unsupported URL: ${url}` };
}

/** TwitchStreamIE._real_extract: the channel's current broadcast, or UserNotLive. */
function twitchAnswer(login, channels, url) {
  const channel = channels[login];
  if (channel === undefined) return { error: `[twitch:stream] ${login}: ${login} does not exist` };
  if (!channel.live) return { error: `[twitch:stream] ${login}: The channel is not currently live` };
  const type = channel.type ?? 'live';
  const height = channel.height ?? 720;
  const thumbnail = channel.thumbnailUrl ?? `https://static-cdn.jtvnw.net/previews-ttv/live_user_${login}-640x360.jpg`;
  return {
    json: {
      id: channel.streamId ?? login,
      display_id: login,
      // the display name, with the stream's type: what a person calls the title is the description
      title: `${channel.displayName ?? login} (${type})`,
      description: channel.title ?? null,
      // _get_thumbnails: the preview at its largest (0x0) preferred, then as given
      thumbnails: [{ url: thumbnail.replace(/\d+x\d+(\.\w+)($|(?=[?#]))/, '0x0$1'), preference: 1 }, { url: thumbnail }],
      thumbnail,
      uploader: channel.displayName ?? login,
      uploader_id: login,
      timestamp: channel.startedAt ?? null,
      view_count: 42,
      formats: [
        {
          format_id: `${height}p60`,
          url: channel.hlsUrl,
          protocol: 'm3u8_native',
          ext: 'mp4',
          tbr: 3000,
          width: Math.round((height * 16) / 9),
          height,
          fps: 60,
          vcodec: 'avc1.4D401F',
          acodec: 'mp4a.40.2',
        },
        { format_id: 'audio_only', url: channel.hlsUrl, protocol: 'm3u8_native', ext: 'mp4', tbr: 160, vcodec: 'none', acodec: 'mp4a.40.2' },
      ],
      is_live: type === 'live',
      live_status: type === 'live' ? 'is_live' : 'not_live',
      extractor: 'twitch:stream',
      extractor_key: 'TwitchStream',
      webpage_url: `https://www.twitch.tv/${login}`,
      original_url: url,
    },
  };
}

/**
 * TwitCastingLiveIE, then TwitCastingIE for the movie it hands on to: HLS with its headers, and
 * WebSocket formats. A movie asked for by its own URL (`movieId`) once it is no longer live is a
 * recording: `is_live: false`, no live formats.
 */
function twitcastingAnswer(user, users, url, movieId = undefined) {
  const live = users[user];
  if (movieId !== undefined && (live === undefined || !live.live || live.movieId !== movieId)) {
    return {
      json: {
        id: String(movieId),
        title: `${user}'s movie`,
        uploader_id: user,
        is_live: false,
        live_status: 'not_live',
        formats: [],
        extractor: 'TwitCasting',
        extractor_key: 'TwitCasting',
        webpage_url: url,
        original_url: url,
      },
    };
  }
  if (live === undefined || !live.live) return { error: `[TwitCastingLive] ${user}: The channel is not currently live` };
  const formats = [];
  if (live.hlsUrl) {
    // _M3U8_HEADERS, with yt-dlp's own std_headers beside them in each format's http_headers
    const headers = { 'User-Agent': 'Mozilla/5.0 (stand-in)', Accept: '*/*', Origin: 'https://twitcasting.tv', Referer: 'https://twitcasting.tv/' };
    formats.push({
      format_id: 'hls-high',
      url: live.hlsUrl,
      protocol: 'm3u8',
      ext: 'mp4',
      height: 720,
      width: 1280,
      vcodec: 'avc1.64001F',
      acodec: 'mp4a.40.2',
      http_headers: headers,
    });
  }
  if (live.websocket || !live.hlsUrl)
    formats.push({ format_id: 'ws-main', url: `wss://twitcasting.tv/ws/${live.movieId}`, protocol: 'websocket_frag', ext: 'mp4' });
  return {
    json: {
      id: String(live.movieId),
      title: live.title ?? `${user}'s live`,
      uploader_id: user,
      timestamp: live.startedAt ?? null,
      thumbnail: `https://twitcasting.tv/${user}/thumb/${live.movieId}`,
      is_live: true,
      live_status: 'is_live',
      formats,
      extractor: 'TwitCasting',
      extractor_key: 'TwitCasting',
      webpage_url: `https://twitcasting.tv/${user}/movie/${live.movieId}`,
      original_url: url,
    },
  };
}

/** NiconicoLiveIE: HLS that only yt-dlp's own downloader, holding the WebSocket open, can fetch. */
function niconicoAnswer(id, programs, url) {
  const program = programs[id];
  if (program === undefined) return { error: `[niconico:live] ${id}: Unable to download webpage: HTTP Error 404: Not Found` };
  return {
    json: {
      id,
      title: program.title ?? id,
      uploader: program.uploader ?? 'supplier',
      channel: program.channel ?? 'community',
      channel_id: program.channelId ?? 'co1',
      is_live: true,
      live_status: 'is_live',
      formats: [
        {
          format_id: 'super_high',
          url: `https://liveedge.dmc.nico/hlslive/${id}/master.m3u8`,
          protocol: 'niconico_live',
          ext: 'mp4',
          vcodec: 'avc1.640028',
          acodec: 'mp4a.40.2',
        },
      ],
      extractor: 'niconico:live',
      extractor_key: 'NiconicoLive',
      webpage_url: `https://live.nicovideo.jp/watch/${id}`,
      original_url: url,
    },
  };
}
