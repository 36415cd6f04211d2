#!/usr/bin/env node
// Decisions: docs/decisions/0053-follow-signals.md
// A STAND-IN for yt-dlp, used by the tests because YouTube cannot be reached here. It answers
// `yt-dlp -J ... -- URL` the way yt-dlp does for a YouTube livestream (the shape of
// test/fixtures/yt-dlp/*.json), in the state the test writes to $YTDLP_STAND_IN_STATE:
// {"liveStatus": "is_upcoming"|"is_live"|"was_live"|"not_live", "releaseTimestamp": N, "hlsUrl": "...", "thumbnailUrl": "..."}
// A state may also describe several videos and channels (what following a channel asks):
// {"videos": {"ID": {"liveStatus", "releaseTimestamp", "title", "membersOnly", "hlsUrl", "error"}},
//  "channels": {"UC…": {"handle": "@name", "name": "…", "streams": ["ID", …]}},
//  "membersOnlyAccess": false, "calls": "/path/of/a/log"}: a video in `videos` answers with its own
// state (the top-level fields otherwise), or fails with its `error` as yt-dlp's ERROR line; `-J --flat-playlist` of a channel's URL (`/channel/UC…`,
// `/@handle`, optionally `/streams`) lists its streams tab; `--playlist-items 0` lists none; a video
// on a channel's streams tab is that channel's (its id and name in the video's info). With
// `calls`, each run's arguments are appended there (one JSON array a line), so tests count runs.
//
// The current contract (yt-dlp 2025.11.12 and later): YouTube needs an external JavaScript runtime.
// Without a `--js-runtimes node:PATH` or `deno:PATH` naming a program that exists (the option
// repeats), the stand-in warns as yt-dlp does
// and lists no formats (its simulation of the formats a runtime-less yt-dlp cannot unlock).
// `--cookies FILE`: a members-only video is answered when the file holds the line the state's
// `memberCookie` names (a member's cookie), or when `membersOnlyAccess` is true. Without access, as
// yt-dlp 2026.08.19 does (docs/research/youtube-live-contract.md §2.4, §5.2): with
// `--ignore-no-formats-error` it exits 0 with the video's details, `formats: []` and `availability:
// "subscriber_only"`, and the reason only as a WARNING line (none with `--no-warnings`); without
// it, it fails with the ERROR line. A video with `"signIn": true` (age-gated) answers the same way
// with `availability: "needs_auth"` and the sign-in reason; a member's access opens it too.
//
// The live chat: `--skip-download --write-subs --sub-langs live_chat -o DIR/NAME.%(ext)s -- URL`
// appends to DIR/NAME.live_chat.json, while the video's state says `is_live`, one line per chat
// action as yt-dlp's youtube_live_chat downloader writes them (see test/support/live-chat.mjs),
// a batch per fetch, and exits 0 when the stream is no longer live (the chat's end). `chat` in
// the state: {"everyMs": 500} makes message n at n × everyMs ms since the epoch; without it the
// stream has no chat (yt-dlp then writes nothing and exits 0); {"error": "…"} fails as yt-dlp does.
//
// Live from the start (docs/research/youtube-live-contract.md §2.3, §2.5): `adaptive` in a live
// video's state is the googlevideo STAND-IN's `stateFor(id)` (test/support/googlevideo-stand-in.ts:
// {"origin", "videoId", "sigSecret", "targetSeconds", "expireInSeconds", "formats": [{"itag",
// "mime", "codecs", "width", "height", "fps", "tbr"}]}). `-J --live-from-start` then lists only
// those adaptive formats (`http_dash_segments_generator`, `is_from_start`, each `url` a base URL
// minted afresh for this run, with no `sq`), and no HLS; without `adaptive` it lists none, and says
// why as yt-dlp does (a WARNING with `--ignore-no-formats-error`, else an ERROR and exit 1). Without
// `--live-from-start` (or with `--no-live-from-start`, the later of the two wins) the HLS format.
//
// YouTube's bad days and later states (docs/research/youtube-live-contract.md §7, each with its
// source): `failures: {count, kind}` (rate_limited | network | bot_check | content_unavailable |
// timeout; runs served counted in `${state}.failures-<id>`), `delayMs`, `liveStatus: null`,
// `liveStatus: "post_live"` (fragments from a HEAD of the googlevideo stand-in, or `headSeqnum`;
// `endTimestamp` gives `duration`), `"was_live"` (VOD formats), `hls: "muxed" | "split" | "none"`
// with `hlsAudioUrl`, and `hlsWithCookies` for a run with --cookies.
//
// Other sites (Twitch, TwitCasting, niconico live): `sites` in the state, answered by
// test/support/yt-dlp-sites.mjs as their extractors answer.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { googlevideoUrl } from '../googlevideo-url.mjs';
import { chatActions } from '../live-chat.mjs';
import { failingNow, failureOf, BUG_REPORTS } from '../yt-dlp-bad-days.mjs';
import { adaptiveFormat, hlsFormats, postLiveFormat, postLiveFragments } from '../yt-dlp-formats.mjs';
import { siteAnswer } from '../yt-dlp-sites.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MEMBERS_ONLY = 'Join this channel to get access to members-only content like this video, and other exclusive perks.';
const SIGN_IN =
  'Sign in to confirm your age. This video may be inappropriate for some users. Use --cookies-from-browser or --cookies for the authentication. ' +
  'See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies. ' +
  'Also see  https://github.com/yt-dlp/yt-dlp/wiki/Extractors#exporting-youtube-cookies  for tips on effectively exporting YouTube cookies';
/** `_live_adaptive_fragments` MAX_DURATION: YouTube keeps the last 120 hours. */
const MAX_DURATION = 432_000;
const LAST_120_HOURS = `Starting download from the last 120 hours of the live stream since YouTube does not have data before that. If you think this is wrong, ${BUG_REPORTS}`;
const NO_RUNTIME =
  'No supported JavaScript runtime could be found. Only deno is enabled by default; to use another runtime add  --js-runtimes RUNTIME[:PATH]  to your command/config. ' +
  'YouTube extraction without a JS runtime has been deprecated, and some formats may be missing. See  https://github.com/yt-dlp/yt-dlp/wiki/EJS  for details on installing one';
const NOT_FROM_START =
  '--live-from-start is passed, but there are no formats that can be downloaded from the start. If you want to download from the current time, use --no-live-from-start';

const args = process.argv.slice(2);
// `--version`: a release of three days ago (a current one), or $YTDLP_STAND_IN_VERSION
if (args.includes('--version')) {
  process.stdout.write(`${process.env.YTDLP_STAND_IN_VERSION ?? new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '.')}\n`);
  process.exit(0);
}
const url = args.at(-1) ?? '';
const fail = (line) => {
  process.stderr.write(`${line}\n`);
  process.exit(1);
};
const readState = () => JSON.parse(readFileSync(process.env.YTDLP_STAND_IN_STATE ?? '', 'utf8'));
const state = readState();
if (state.calls) appendFileSync(state.calls, `${JSON.stringify(args)}\n`);
const optionValue = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const runtimes = args.flatMap((arg, i) => (args[i - 1] === '--js-runtimes' ? [arg] : []));
const hasRuntime = runtimes.some((runtime) => /^(node|deno):/.test(runtime) && existsSync(runtime.slice(runtime.indexOf(':') + 1)));
if (!hasRuntime && !args.includes('--no-warnings')) {
  process.stderr.write(`WARNING: [youtube] ${NO_RUNTIME}\n`);
}
const cookieLines = optionValue('--cookies')
  ? readFileSync(optionValue('--cookies'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
  : [];
const liveFromStart = args.lastIndexOf('--live-from-start') > args.lastIndexOf('--no-live-from-start');
const isMember = state.membersOnlyAccess === true || (state.memberCookie !== undefined && cookieLines.includes(state.memberCookie));
if (args.includes('--write-subs')) await followChat();
if (!args.includes('-J')) fail(`ERROR: [youtube] stand-in: unsupported call ${args.join(' ')}`);
// every other site, as its extractor answers (test/support/yt-dlp-sites.mjs)
if (!/^https?:\/\/(?:[\w-]+\.)*(?:youtube\.com|youtu\.be)\//.test(url)) {
  const answer = siteAnswer(url, state.sites, args);
  if (answer.error) fail(`ERROR: ${answer.error}`);
  process.stdout.write(`${JSON.stringify(answer.json)}\n`);
  process.exit(0);
}

const channelUrl = /^https:\/\/www\.youtube\.com\/(?:channel\/(UC[\w-]{22})|(@[\w.-]+))(\/streams)?\/?$/.exec(url);
if (channelUrl) {
  if (!args.includes('--flat-playlist')) fail(`ERROR: [youtube:tab] stand-in: a channel is listed only with --flat-playlist`);
  process.stdout.write(`${JSON.stringify(channelPlaylist(channelUrl[1], channelUrl[2], channelUrl[3] !== undefined))}\n`);
  process.exit(0);
}
const id = /[?&]v=([\w-]{11})/.exec(url)?.[1];
if (id === undefined) fail(`ERROR: [youtube] stand-in: unsupported call ${args.join(' ')}`);
const video = state.videos?.[id] ?? state;
const delayMs = video.delayMs ?? state.delayMs ?? 0;
if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
const failure = failingNow(process.env.YTDLP_STAND_IN_STATE, id, video.failures ?? state.failures)
  ? failureOf((video.failures ?? state.failures).kind, id)
  : null;
if (failure?.hang) await new Promise(() => setInterval(() => undefined, 60_000)); // until killed
for (const line of failure?.warnings ?? []) warn(line);
if (failure?.error) fail(`ERROR: ${failure.error}`);
process.stdout.write(`${JSON.stringify(await videoInfo(id, video, failure?.reason ?? null))}\n`);

/** A WARNING line on stderr, unless `--no-warnings`. */
function warn(line) {
  if (!args.includes('--no-warnings')) process.stderr.write(`WARNING: ${line}\n`);
}

/** What `yt-dlp -J` prints for one video in the given state; `unplayable` a playability reason YouTube gave instead of the video (bot check…). */
async function videoInfo(id, video, unplayable) {
  if (video.error) fail(`ERROR: [youtube] ${id}: ${video.error}`);
  // no access: raise_no_formats, which --ignore-no-formats-error turns into a warning
  const refusal = unplayable ?? (isMember ? null : video.membersOnly ? MEMBERS_ONLY : video.signIn ? SIGN_IN : null);
  if (refusal !== null && !args.includes('--ignore-no-formats-error')) fail(`ERROR: [youtube] ${id}: ${refusal}`);
  if (refusal !== null) warn(`[youtube] ${id}: ${refusal}`);
  const info = fixture(video.liveStatus === 'was_live' ? 'was-live.json' : 'live.json');
  info.id = id;
  info.webpage_url = `https://www.youtube.com/watch?v=${id}`;
  if (video.title) info.title = info.fulltitle = video.title;
  if (video.membersOnly) info.availability = 'subscriber_only';
  else if (video.signIn) info.availability = 'needs_auth';
  const [channelId, channel] = Object.entries(state.channels ?? {}).find(([, c]) => c.streams?.includes(id)) ?? [];
  if (channel !== undefined) {
    info.channel_id = channelId;
    info.channel = info.uploader = channel.name;
    info.channel_url = `https://www.youtube.com/channel/${channelId}`;
  }
  // without videoDetails (a bot check's player response) the status is unknown: _list_formats gives None
  const liveStatus = unplayable !== null ? null : (video.liveStatus ?? null);
  info.live_status = liveStatus;
  // YoutubeDL._fill_common_fields derives is_live/was_live from a known status only
  if (liveStatus === null) {
    delete info.is_live;
    delete info.was_live;
  } else Object.assign(info, { is_live: liveStatus === 'is_live', was_live: liveStatus === 'was_live' || liveStatus === 'post_live' });
  info.release_timestamp = video.releaseTimestamp ?? info.release_timestamp;
  const ended = video.endTimestamp !== undefined && info.release_timestamp !== null ? video.endTimestamp - info.release_timestamp : null;
  if (liveStatus === 'post_live' || ended !== null) info.duration = ended;
  if (video.thumbnailUrl) info.thumbnails = [{ url: video.thumbnailUrl, preference: 1, id: '0', width: 1280, height: 720 }];
  const playable = hasRuntime && refusal === null;
  info.formats = !playable
    ? []
    : liveStatus === 'post_live'
      ? await postLiveFormats(id, video)
      : liveStatus === 'was_live'
        ? info.formats
        : liveFormats(id, video, liveStatus);
  return info;
}

/** One of test/fixtures/yt-dlp/, parsed afresh. */
function fixture(name) {
  const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'yt-dlp');
  return JSON.parse(readFileSync(path.join(fixtures, name), 'utf8'));
}

/** A live video's formats: its HLS formats (`hls`, or `hlsWithCookies` for a run with --cookies), or, with `--live-from-start`, its adaptive formats. */
function liveFormats(id, video, liveStatus) {
  // the live adaptive formats are kept only for a known is_live with --live-from-start (_needs_live_processing)
  if (!liveFromStart || liveStatus !== 'is_live') {
    const mode = (optionValue('--cookies') !== undefined ? video.hlsWithCookies : undefined) ?? video.hls ?? 'muxed';
    const formats = liveStatus === 'is_live' || liveStatus === null ? hlsFormats(mode, video.hlsUrl, video.hlsAudioUrl) : [];
    // YoutubeDL.process_video_result: no formats at all is raise_no_formats' "No video formats found!"
    if (formats.length === 0 && liveStatus === 'is_live') {
      if (!args.includes('--ignore-no-formats-error')) fail(`ERROR: [youtube] ${id}: No video formats found!`);
      warn('No video formats found!');
    }
    return formats;
  }
  if (video.adaptive !== undefined) return video.adaptive.formats.map((format) => adaptiveFormat(id, video.adaptive, format));
  // YoutubeDL.raise_no_formats: an ERROR (exit 1), or only a warning, without the extractor's prefix
  if (!args.includes('--ignore-no-formats-error')) fail(`ERROR: [youtube] ${id}: ${NOT_FROM_START}`);
  warn(NOT_FROM_START);
  return [];
}

/**
 * A post_live video's formats (`_prepare_live_from_start_formats`, not live): each adaptive format
 * with its fragments materialised from one HEAD of its base URL (`_live_adaptive_fragments`, no
 * url_feed: a HEAD that fails adds 2 to no_fragment_score, so up to 16 are tried before giving up
 * with no fragments), or from the state's `headSeqnum`. No HLS: post_live is processed live (skip 'hls').
 */
async function postLiveFormats(id, video) {
  const adaptive = video.adaptive;
  if (adaptive === undefined) return [];
  const started = video.releaseTimestamp ?? null;
  const lacksEarly = started !== null && Date.now() / 1000 - started > MAX_DURATION;
  if (lacksEarly) warn(`[youtube] ${LAST_120_HOURS}`);
  const formats = [];
  for (const format of adaptive.formats) {
    const base = googlevideoUrl(adaptive, format.itag);
    const head = video.headSeqnum ?? (await headSeqnum(base));
    const first = lacksEarly && head !== null ? head - 1 - Math.floor(MAX_DURATION / adaptive.targetSeconds) : 0;
    formats.push(postLiveFormat(id, adaptive, format, base, (url) => postLiveFragments(url, head, first)));
  }
  return formats;
}

/** X-Head-Seqnum of the bare base URL, as `_live_adaptive_fragments` reads it; null once 16 HEADs failed. */
async function headSeqnum(base) {
  for (let score = 0; score <= 30; score += 2) {
    const response = await fetch(base, { method: 'HEAD' }).catch(() => null);
    const head = response?.ok ? Number.parseInt(response.headers.get('x-head-seqnum') ?? '', 10) : Number.NaN;
    if (Number.isInteger(head)) return head;
  }
  return null;
}

/** What `yt-dlp -J --flat-playlist` prints for a channel's streams tab (or its home, by handle). */
function channelPlaylist(channelId, handle, streamsTab) {
  const [id, channel] = Object.entries(state.channels ?? {}).find(([key, c]) => key === channelId || c.handle === handle) ?? [];
  if (channel === undefined) fail(`ERROR: [youtube:tab] ${channelId ?? handle}: This channel does not exist.`);
  const none = args.includes('--playlist-items') && args[args.indexOf('--playlist-items') + 1] === '0';
  const entries = none
    ? []
    : channel.streams.map((videoId) => {
        const video = state.videos?.[videoId] ?? {};
        return {
          _type: 'url',
          ie_key: 'Youtube',
          id: videoId,
          url: `https://www.youtube.com/watch?v=${videoId}`,
          title: video.title ?? videoId,
          description: null,
          duration: null,
          channel_id: null,
          channel: null,
          uploader: null,
          uploader_id: null,
          thumbnails: [{ url: `https://i.ytimg.com/vi/${videoId}/hqdefault.jpg`, height: 94, width: 168 }],
          live_status: video.liveStatus ?? null,
          release_timestamp: video.releaseTimestamp ?? null,
          availability: video.membersOnly ? 'subscriber_only' : null,
          view_count: null,
        };
      });
  return {
    id,
    channel: channel.name,
    channel_id: id,
    title: `${channel.name} - ${streamsTab ? 'Live' : 'Home'}`,
    availability: null,
    channel_follower_count: 1234,
    description: '',
    tags: [],
    thumbnails: [],
    uploader_id: channel.handle,
    uploader_url: `https://www.youtube.com/${channel.handle}`,
    modified_date: null,
    view_count: null,
    playlist_count: entries.length,
    uploader: channel.name,
    channel_url: `https://www.youtube.com/channel/${id}`,
    _type: 'playlist',
    entries,
    webpage_url: url,
    original_url: url,
    extractor: 'youtube:tab',
    extractor_key: 'YoutubeTab',
  };
}

/** What `yt-dlp --write-subs --sub-langs live_chat` does for a live video: the chat, fetched as it comes. */
async function followChat() {
  const videoId = /[?&]v=([\w-]{11})/.exec(url)?.[1];
  const video = state.videos?.[videoId] ?? state;
  const chat = video.chat ?? state.chat;
  if (chat?.error) fail(`ERROR: [youtube] ${url}: ${chat.error}`);
  // no access: without --ignore-no-formats-error, raise_no_formats fails the run before any chat
  if (!isMember && (video.membersOnly || video.signIn)) fail(`ERROR: [youtube] ${videoId}: ${video.membersOnly ? MEMBERS_ONLY : SIGN_IN}`);
  if (video.liveStatus !== 'is_live' || chat === undefined) process.exit(0); // "There are no subtitles for the requested languages"
  const template = args[args.indexOf('-o') + 1];
  const file = template.replace('%(ext)s', 'live_chat.json');
  const started = Date.now();
  // the first fetch holds the last moments of chat, as YouTube's first page does
  let next = Math.floor((Date.now() - (chat.backlogMs ?? 3000)) / chat.everyMs) + 1;
  for (;;) {
    const now = Math.floor(Date.now() / chat.everyMs);
    const lines = [];
    for (; next <= now; next++) {
      // as parse_actions_live wraps each action: the offset counts from yt-dlp's own start
      for (const action of chatActions(next, chat)) {
        lines.push(JSON.stringify({ replayChatItemAction: { actions: [action] }, videoOffsetTimeMsec: String(next * chat.everyMs - started), isLive: true }));
      }
    }
    if (lines.length > 0) appendFileSync(file, `${lines.join('\n')}\n`);
    const current = readState();
    const live = (current.videos?.[videoId] ?? current).liveStatus === 'is_live';
    // as yt-dlp, it runs on when its parent dies: Kura must not leave it behind
    if (!live) process.exit(0);
    await new Promise((resolve) => setTimeout(resolve, chat.fetchMs ?? 400));
  }
}
