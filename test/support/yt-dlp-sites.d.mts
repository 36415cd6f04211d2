/** What the STAND-IN yt-dlp prints for a live site's URL (test/support/yt-dlp-sites.mjs): `-J`'s JSON, or the ERROR line's words. */
export function siteAnswer(
  url: string,
  sites?: Record<string, Record<string, Record<string, unknown>>>,
  args?: readonly string[],
): { json: unknown } | { error: string };
