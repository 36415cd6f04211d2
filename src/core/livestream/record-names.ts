/**
 * How a record of an HLS stream is named when nobody gave it a name: by its channel (or host) and
 * the minute it began, `Karaoke night 2026-11-30 18:02 UTC`, under a channel id that is a slug of
 * the channel's name. Follows and submissions name their records the same way.
 */

/** `2026-11-30 18:00` (UTC). */
export function utcMinute(at: Date): string {
  return at.toISOString().slice(0, 16).replace('T', ' ');
}

/** A record's default title: `{channel} {minute} UTC`. */
export function defaultTitle(channel: string, at: Date): string {
  return `${channel} ${utcMinute(at)} UTC`;
}

/** The channel id an HLS stream's records carry: a slug of its name (`Karaoke Night` → `karaoke-night`). */
export function channelSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug === '' ? 'hls' : slug;
}
