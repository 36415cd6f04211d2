// Decisions: docs/decisions/0089-how-kura-runs-yt-dlp.md
/** What a yt-dlp warning Kura keeps is about; any other warning is noise. */
export type YtDlpWarningKind =
  | 'bot_check'
  | 'rate_limited'
  | 'no_js_runtime'
  | 'po_token'
  | 'sabr_only'
  | 'cookies_invalid'
  | 'members_only'
  | 'sign_in'
  | 'gone'
  | 'not_from_start'
  | 'window_120h';

// Each from yt-dlp's source (2026.08.19), first match wins; the order puts the specific before the
// general ("No supported JavaScript runtime… some formats may be missing" is about the runtime).
const KINDS: Array<[YtDlpWarningKind, RegExp, string]> = [
  // YouTube's "Sign in to confirm you’re not a bot", passed on by _video.py's raise_no_formats
  ['bot_check', /not a bot/i, 'YouTube asked for proof this is not a bot'],
  ['rate_limited', /HTTP Error 429|Too Many Requests|rate-limited by YouTube/i, 'YouTube rate-limits Kura'],
  // _video.py: "No supported JavaScript runtime could be found. Only deno is enabled by default; …"
  ['no_js_runtime', /No supported JavaScript runtime/i, 'yt-dlp found no JavaScript runtime, so formats may be missing'],
  // _video.py: "… formats require a GVS PO Token which was not provided", "Signature solving failed:
  // Some formats may be missing", "n challenge solving failed: Some formats may be missing"
  ['po_token', /PO Token|formats may be missing/i, 'YouTube withheld formats (PO token or challenge)'],
  // _video.py: "YouTube may have enabled the SABR-only streaming experiment for the current session"
  ['sabr_only', /SABR/, 'YouTube offers some formats only over SABR, which yt-dlp cannot download'],
  // _base.py: "The provided YouTube account cookies are no longer valid. They have likely been rotated…"
  ['cookies_invalid', /cookies are no longer valid/i, 'the cookies (KURA_YTDLP_COOKIES) are no longer valid: export them again'],
  ['members_only', /members-only content|join this channel to get access|available to this channel's members/i, 'members-only'],
  ['gone', /private video|video is private|video unavailable|has been removed|has been terminated/i, 'the video is private or removed'],
  ['sign_in', /sign in|confirm your age|--cookies for the authentication/i, 'YouTube asks to sign in'],
  // YoutubeDL.py raise_no_formats: "--live-from-start is passed, but there are no formats that can be downloaded from the start"
  ['not_from_start', /no formats that can be downloaded from the start/i, "no formats from the stream's start"],
  // _video.py _live_adaptive_fragments: "Starting download from the last 120 hours of the live stream…"
  ['window_120h', /last 120 hours/i, 'YouTube keeps only the last 120 hours of a live stream'],
];

/** The kind of one warning (its words, without `WARNING:`), null for noise. */
export function warningKindOf(words: string): YtDlpWarningKind | null {
  return KINDS.find(([, pattern]) => pattern.test(words))?.[0] ?? null;
}

/** The meaningful `WARNING:` lines of yt-dlp's stderr, in its words: the `WARNING:` and `[extractor] id:` prefixes stripped, each once. */
export function readWarnings(stderr: string): string[] {
  const words = stderr
    .split('\n')
    .filter((line) => line.startsWith('WARNING:'))
    .map((line) => line.replace(/^WARNING:\s*(?:\[[\w:]+\]\s*(?:[\w@.-]+:\s+)?)?/, '').trim())
    .filter((line) => warningKindOf(line) !== null);
  return [...new Set(words)];
}

/** What these warnings mean, in a short reason (their kinds, once each, in order), or null when there are none. */
export function warningsInShort(warnings: readonly string[]): string | null {
  const kinds = [...new Set(warnings.map(warningKindOf).filter((kind) => kind !== null))];
  if (kinds.length === 0) return null;
  return kinds.map((kind) => KINDS.find(([k]) => k === kind)?.[2]).join('; ');
}
