// Decisions: docs/decisions/0089-how-kura-runs-yt-dlp.md
/** Why a yt-dlp run failed, in kinds a caller can act on (retry later, ask for cookies, give up). */
export type YtDlpTrouble = 'rate_limited' | 'bot_check' | 'sign_in' | 'members_only' | 'gone' | 'timeout' | 'missing' | 'failed';

/** A failed yt-dlp run: its message is yt-dlp's error words (or Kura's, for a run that never spoke). */
export class YtDlpFailure extends Error {
  readonly trouble: YtDlpTrouble;
  constructor(trouble: YtDlpTrouble, message: string) {
    super(message);
    this.name = 'YtDlpFailure';
    this.trouble = trouble;
  }
}

/** The kind of a failure: a YtDlpFailure's own, `failed` for any other error. */
export function troubleOf(error: unknown): YtDlpTrouble {
  return error instanceof YtDlpFailure ? error.trouble : 'failed';
}

// The words, from yt-dlp's source (2026.08.19) and YouTube's reasons it passes on:
// - networking/exceptions.py HTTPError: `HTTP Error {status}: {reason}` ("HTTP Error 429: Too Many
//   Requests"); extractor/youtube/_video.py wraps YouTube's "This content isn't available, try again
//   later" with "… has been rate-limited by YouTube for up to an hour".
const RATE_LIMITED = /HTTP Error 429|Too Many Requests|rate-limited by YouTube/i;
// - YouTube's reason "Sign in to confirm you’re not a bot" (either apostrophe), to which
//   _video.py appends `_youtube_login_hint` because it contains "sign in".
const BOT_CHECK = /not a bot/i;
// - YouTube's members-only reason "Join this channel to get access to members-only content like this
//   video, and other exclusive perks." and its tier variant "This video is available to this
//   channel's members on level: …" (docs/research/youtube-live-contract.md §2.4).
const MEMBERS_ONLY = /members-only content|join this channel to get access|available to this channel's members/i;
// - "Private video. Sign in if you've been granted access…", "Video unavailable. This video has been
//   removed by the uploader", "…the YouTube account associated with this video has been terminated";
//   a channel: _tab.py "The channel/playlist does not exist…", YouTube's "This channel does not exist."
//   Before sign-in: a private video's reason says "Sign in" too, and cookies do not bring it back.
const GONE = /private video|video is private|video unavailable|has been removed|has been terminated|does not exist/i;
// - Age gates ("Sign in to confirm your age"), `_youtube_login_hint` ("Use --cookies-from-browser or
//   --cookies for the authentication"), _base.py "Login details are needed to download this content".
const SIGN_IN = /sign in|confirm your age|age-restricted|--cookies for the authentication|login details are needed/i;

/** The kind of trouble yt-dlp's error words tell, `failed` when they tell none of those Kura acts on. */
export function troubleInWords(words: string): YtDlpTrouble {
  if (RATE_LIMITED.test(words)) return 'rate_limited';
  if (BOT_CHECK.test(words)) return 'bot_check';
  if (MEMBERS_ONLY.test(words)) return 'members_only';
  if (GONE.test(words)) return 'gone';
  if (SIGN_IN.test(words)) return 'sign_in';
  return 'failed';
}

/** Troubles that cookies (a signed-in account's, a member's) may lift: a run refused so is tried again with them. */
export function isRefusal(trouble: YtDlpTrouble): boolean {
  return trouble === 'bot_check' || trouble === 'sign_in' || trouble === 'members_only';
}

/** A failure in words an operator reads on a follow's health: what YouTube did, then yt-dlp's words. */
export function failureInWords(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lead: Partial<Record<YtDlpTrouble, string>> = {
    rate_limited: 'YouTube rate-limits Kura (HTTP 429)',
    bot_check: 'YouTube asks Kura to prove it is not a bot',
    sign_in: 'YouTube asks to sign in',
    members_only: 'members-only',
    timeout: 'yt-dlp took too long',
  };
  const said = lead[troubleOf(error)];
  return said === undefined ? message : `${said}: ${message}`;
}
