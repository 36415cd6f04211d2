// Decisions: docs/decisions/0019-submission.md
/**
 * How a record of an HLS stream is named when nobody gave it a name: by its channel (or host) and
 * the minute it began, `Karaoke night 2026-11-30 18:02 UTC`, under a channel id that is a slug of
 * the channel's name. Follows and submissions name their records the same way. A name a person
 * gives (a submission's, an admin's rename) is kept as `givenName` makes it.
 */

/** Controls (C0, DEL, C1) and the line and paragraph separators: a name is one line. */
const CONTROLS = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029';
/**
 * Invisible characters that reorder or hide text: the bidirectional marks, embeddings, overrides
 * and isolates (U+202E shows a name backwards), zero-width space, word joiner, invisible operators,
 * deprecated format characters, the byte-order mark and interlinear annotations. ZWJ and ZWNJ
 * stay: emoji sequences and several scripts need them.
 */
const INVISIBLES = '\\u061c\\u180e\\u200b\\u200e\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb';
const CONTROL_RUNS = new RegExp(`[${CONTROLS}]+`, 'g');
const INVISIBLE = new RegExp(`[${INVISIBLES}]`, 'g');

/** A pattern (JSON Schema, Unicode) a name given over the API must match: one character `givenName` keeps that is not a space. */
export const VISIBLE_NAME_PATTERN = `[^\\s${CONTROLS}${INVISIBLES}]`;

/** What `givenName` does, in the words the API document uses. */
export const GIVEN_NAME_RULE =
  'controls become a space, invisible formatting characters (bidi overrides, zero-width space) are removed, it is trimmed, and a visible character must remain';

/** A title or channel name a person gave, as kept: invisible format characters removed, each run of controls one space, trimmed. */
export function givenName(text: string): string {
  return text.replace(INVISIBLE, '').replace(CONTROL_RUNS, ' ').trim();
}

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
