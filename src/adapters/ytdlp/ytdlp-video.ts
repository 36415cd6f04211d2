// Decisions: docs/decisions/0089-how-kura-runs-yt-dlp.md
import { runYtDlp, type YtDlpAnswer } from './run-ytdlp.js';
import type { YtDlpProgram } from './ytdlp-program.js';

export type { YtDlpAnswer } from './run-ytdlp.js';
export { troubleOf, YtDlpFailure, type YtDlpTrouble } from './ytdlp-trouble.js';

/**
 * Runs yt-dlp for one video's URL; resolves with its answer, rejects with a YtDlpFailure. `fromStart`
 * (the default) asks for the formats a live stream can be recorded in from its first fragment; false
 * for its HLS formats, which start at the live edge's window. `membersOnly` (a stream known to be
 * members-only) runs with the cookies from the first; otherwise they are handed only to a second run
 * when YouTube refuses the first.
 */
export type YtDlp = ((url: string, options?: { fromStart?: boolean; membersOnly?: boolean }) => Promise<YtDlpAnswer>) & {
  /** Whether cookies are set (KURA_YTDLP_COOKIES) for the runs that need them; absent: no. */
  cookies?: boolean;
};

/** A look at one video through this yt-dlp: `yt-dlp -J --no-playlist --ignore-no-formats-error --[no-]live-from-start -- URL`. */
export function createYtDlp(program: YtDlpProgram): YtDlp {
  // --ignore-no-formats-error: an upcoming stream has no formats yet, and still has its details.
  // It also turns YouTube's refusals (members-only, sign in) into warnings: yt-dlp exits 0 with no
  // formats, `availability` saying why, and the reason in a WARNING line (runYtDlp reads both).
  const run = (url: string, { fromStart = true, membersOnly = false } = {}) =>
    runYtDlp(program, ['-J', '--no-playlist', '--ignore-no-formats-error', fromStart ? '--live-from-start' : '--no-live-from-start', '--', url], {
      cookies: membersOnly,
    });
  return Object.assign(run, { cookies: program.cookiesFile !== null });
}

/**
 * A look at a live broadcast on a site other than YouTube: `yt-dlp -J --no-playlist
 * --no-live-from-start --use-extractors default,-generic -- URL`. The generic extractor (any web
 * page, any address) is left out: a URL is opened only by a site's own extractor, which fetches
 * that site's hosts (docs/research/live-sites-contract.md).
 */
export type SiteYtDlp = (url: string) => Promise<YtDlpAnswer>;

export function createSiteYtDlp(program: YtDlpProgram): SiteYtDlp {
  return (url) => runYtDlp(program, ['-J', '--no-playlist', '--no-live-from-start', '--use-extractors', 'default,-generic', '--', url]);
}
