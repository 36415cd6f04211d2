// Research: docs/research/youtube-live-contract.md §2.4, §7 (the stand-ins' knobs)
// The yt-dlp STAND-IN's bad days (test/support/bin/yt-dlp-stand-in.mjs): a run that fails for a
// while, as yt-dlp 2026.08.19 fails when YouTube rate-limits, asks for a sign-in, or cannot be reached.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** yt-dlp's `bug_reports_message()` (utils/_utils.py), appended to an unexpected ExtractorError. */
export const BUG_REPORTS =
  'please report this issue on  https://github.com/yt-dlp/yt-dlp/issues?q= , filling out the appropriate issue template. Confirm you are on the latest version using  yt-dlp -U';
/** `_youtube_login_hint` (_base.py), which `_real_extract` appends to a reason that says "sign in". */
export const LOGIN_HINT =
  'Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies. ' +
  'Also see  https://github.com/yt-dlp/yt-dlp/wiki/Extractors#exporting-youtube-cookies  for tips on effectively exporting YouTube cookies';
/** YouTube's "not a bot" reason as `_real_extract` rewrites it (the subreason "This helps protect our community. Learn more" removed). */
export const BOT_CHECK = `Sign in to confirm you’re not a bot. ${LOGIN_HINT}`;
/** YouTube's playability rate limit as `_real_extract` rewrites it (the session is not logged in). */
export const CONTENT_UNAVAILABLE =
  "This content isn't available, try again later. The current session has been rate-limited by YouTube for up to an hour. It is recommended to use `-t sleep` to add a delay " +
  'between video requests to avoid exceeding the rate limit. For more information, refer to  https://github.com/yt-dlp/yt-dlp/wiki/Extractors#this-content-isnt-available-try-again-later';
const NO_PLAYER_RESPONSE = `Failed to extract any player response; ${BUG_REPORTS}`;
const HTTP_429 = 'HTTP Error 429: Too Many Requests (caused by <HTTPError 429: Too Many Requests>)';
const DNS = '<urlopen error [Errno -3] Temporary failure in name resolution>';
const DNS_CAUSED = `${DNS} (caused by TransportError('${DNS}'))`;
/** The player clients yt-dlp asks without cookies (`_DEFAULT_CLIENTS`), each failing on its own. */
const CLIENTS = ['visionos', 'web'];

/**
 * Whether this run is one of the next `failures.count` for `id`: the runs served so far are counted
 * in `${stateFile}.failures-${id}` (so the count holds across processes; delete the file to start over).
 */
export function failingNow(stateFile, id, failures) {
  if (failures === undefined || failures === null || !(failures.count > 0)) return false;
  const counter = `${stateFile}.failures-${id}`;
  const served = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0;
  if (served >= failures.count) return false;
  writeFileSync(counter, String(served + 1));
  return true;
}

/**
 * What a failing run prints, as yt-dlp 2026.08.19 would: `{warnings, error}` (the ERROR line,
 * exit 1), or `{warnings, reason}` for a playability reason (`raise_no_formats`: an ERROR without
 * --ignore-no-formats-error, only a warning with it), or `{hang: true}`.
 */
export function failureOf(kind, id) {
  switch (kind) {
    // the watch page's 429 is a warning (_download_webpage_with_retries, fatal=False); each client's
    // player API call fails (_extract_response: 403/429 are not retried), then no player response is left
    case 'rate_limited':
      return {
        warnings: [
          `[youtube] ${id}: Unable to download webpage: ${HTTP_429}`,
          ...CLIENTS.map(() => `[youtube] ${id}: Unable to download API page: ${HTTP_429}`),
        ],
        error: `[youtube] ${id}: ${NO_PLAYER_RESPONSE}`,
      };
    // a transport error is retried 3 times (extractor_retries) on the page and on each client
    case 'network': {
      const retries = [1, 2, 3].map((n) => `[youtube] ${DNS}. Retrying (${n}/3)...`);
      return {
        warnings: [
          ...retries,
          `[youtube] ${id}: Unable to download webpage: ${DNS_CAUSED}. Giving up after 3 retries`,
          ...CLIENTS.flatMap(() => [...retries, `[youtube] ${id}: Unable to download API page: ${DNS_CAUSED}`]),
        ],
        error: `[youtube] ${id}: ${NO_PLAYER_RESPONSE}`,
      };
    }
    case 'bot_check':
      return { warnings: [], reason: BOT_CHECK };
    case 'content_unavailable':
      return { warnings: [], reason: CONTENT_UNAVAILABLE };
    case 'timeout':
      return { hang: true };
    default:
      throw new Error(`yt-dlp stand-in: unknown failure kind ${kind}`);
  }
}
