import type { Platform } from '../vocabulary.js';

/** A separate audio rendition recorded beside a playlist's video (`#EXT-X-MEDIA:TYPE=AUDIO` with a URI): its media playlist, language and name. */
export interface AudioLane {
  url: string;
  language: string | null;
  name: string;
}

/** What a source says about a stream's identity and schedule (YouTube knows them; HLS does not). */
export interface StreamDetails {
  title: string;
  channelName: string;
  channelId: string;
  /** When the stream is (or was) scheduled to start; null when the source does not say. */
  scheduledStart: Date | null;
  thumbnailUrl: string | null;
  /** A stream only the channel's paying members may watch; absent when the source does not say. */
  membersOnly?: boolean;
}

/** What a source says about a stream right now. */
export interface SourceStatus {
  /**
   * `ended`: the source says the broadcast is over (with `fragments` when they are still served:
   * YouTube's post_live, recordable whole);
   * `not_live`: it says the stream is not live, without saying it ended (YouTube's not_live);
   * `unknown`: it could not say (a failed look, a rate limit, a bot check, no status): a passing
   * trouble, asked again with backoff, never an end (`trouble` says which);
   * `refused`: Kura will not fetch it (a private address without KURA_ALLOW_PRIVATE_SOURCES);
   * `gone`: the source says the video was removed or made private;
   * `no_access`: the source refuses Kura (a members-only or sign-in stream the cookies do not open).
   */
  state: 'live' | 'not_yet' | 'ended' | 'not_live' | 'unknown' | 'refused' | 'gone' | 'no_access';
  /**
   * With `not_yet`: no answer came at all (a refused connection, a time-out, an error status but
   * 404/410, something that is no playlist), what a capture's playlist fetch counts toward
   * `source_unreachable`; absent when the source answered that there is nothing yet.
   */
  unanswered?: true;
  /** Why the source could not say (state `unknown`): it rate-limits Kura, asks it to prove it is no bot, or its look failed otherwise. */
  trouble?: SourceTrouble;
  /** The media playlist to record, when live (and not recorded fragment by fragment). */
  playlistUrl?: string;
  /** Request headers its playlist and segments answer only with (a site's Origin and Referer, as yt-dlp lists them); absent: none. */
  playlistHeaders?: Readonly<Record<string, string>>;
  /** The separate audio renditions to record beside the playlist's video (an HLS variant's `EXT-X-MEDIA:TYPE=AUDIO`); absent: none, its audio is in its segments. */
  playlistAudio?: readonly AudioLane[];
  /** The adaptive formats to record fragment by fragment from the first, when live and the source offers them (YouTube). */
  fragments?: FragmentedStream;
  /** Why a live stream is recorded through its playlist although its source may offer fragments (the fallback, for the capture's log). */
  fragmentsRefused?: string;
  reason?: string;
  /** Fresh details, when the source has them (a moved schedule, a renamed stream). */
  details?: StreamDetails;
  /** The number of the newest fragment it serves, when asked (`check`'s `newest`) and it could say. */
  newestFragment?: number;
}

/** Why a source could not say what a stream is doing right now (see SourceStatus). */
export type SourceTrouble = 'rate_limited' | 'bot_check' | 'no_status' | 'failed';

/**
 * One adaptive format of a live stream whose fragments are numbered from 0 (YouTube's `sq`):
 * each fragment is a self-contained file (initialization and media) of one track.
 */
export interface FragmentFormat {
  /** The source's name for the format (YouTube's itag): the same format keeps it when its URL is renewed. */
  id: string;
  /** The URL a fragment's number is added to; it expires. */
  url: string;
  /** `video/mp4`, `audio/webm`… */
  mime: string;
  /** `avc1.4d401f`, `vp9`, `av01…`, `mp4a.40.2`, `opus`. */
  codec: string;
  width: number | null;
  height: number | null;
  fps: number | null;
  /** Bits per second, as the source says. */
  bitrate: number;
}

/** A live stream recorded fragment by fragment: the video and the audio format chosen, and every one offered (to find them again under renewed URLs). */
export interface FragmentedStream {
  video: FragmentFormat;
  audio: FragmentFormat;
  /** Seconds of media in each fragment. */
  fragmentSeconds: number;
  offered: FragmentFormat[];
}

/** A submitted URL as a source sees it. */
export type Inspection =
  /**
   * `membersOnly`: refused because only the channel's members may watch it, and Kura is not one;
   * `signIn`: refused because YouTube asks to sign in (age-restricted), and Kura's cookies do not.
   */
  | { kind: 'rejected'; reason: string; membersOnly?: boolean; signIn?: boolean }
  | {
      kind: 'accepted';
      platform: Platform;
      /** The record id the source dictates (a YouTube video id), or null for a generated one. */
      id: string | null;
      /** The one form of the URL records are kept under. */
      canonicalUrl: string;
      details: StreamDetails | null;
    };

/** A quality a stream can be recorded in: its code (`720p`, or `best`) and frame size. */
export interface Quality {
  code: string;
  /** `1280x720`, or words when the source does not say yet. */
  resolution: string;
  /** The one recorded when no quality is asked for. */
  best: boolean;
}

export interface StreamSource {
  /** Whether the URL is this source's to judge (by its form alone, without fetching). */
  recognises(url: string): boolean;
  /** Whether the URL names a stream this source can record that is upcoming or live. */
  inspect(url: string): Promise<Inspection>;
  /**
   * `fragments: false` asks for the playlist of the live edge's window even where the source offers
   * fragments from the first (the fallback); `newest: true` asks for the newest fragment's number
   * as well (one more request).
   */
  check(sourceUrl: string, quality: string | null, options?: { fragments?: boolean; newest?: boolean }): Promise<SourceStatus>;
  /** The qualities the stream offers now, best first; rejects (AppError) when the URL is not a stream. */
  qualities(url: string): Promise<Quality[]>;
}

/** Why Kura refuses a URL for where its host name points: in words for anyone, and in full (the addresses) for the admin. */
export interface AddressRefusal {
  /** Names the host, never an address it resolves to. */
  publicReason: string;
  detail: string;
}

/** Resolves a URL's host name now and says why Kura refuses where it points, or null (also for a name that does not resolve). */
export type CheckAddresses = (url: string) => Promise<AddressRefusal | null>;
