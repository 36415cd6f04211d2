// Decisions: docs/decisions/0075-original-interface-compatibility.md
/**
 * What an export of the original interface's `/api/history` holds that Kura's records do not:
 * download URLs relative to the instance that served them, and submitters that are not
 * `provider/id` (the instance's host name for its automatic submissions, bare numeric ids of
 * earlier logins).
 */

/** The provider a submitter that is not `provider/id` is kept under: `legacy/<value>`. */
export const LEGACY_PROVIDER = 'legacy';

/** A submitter an import takes: `provider/id`, or a value without spaces or slashes (kept as `legacy/<value>`). */
export const IMPORT_SUBMITTER_PATTERN = '^([a-z0-9_-]{1,32}/[^\\s/]{1,128}|[^\\s/]{1,128})$';

/** A download URL relative to the instance that served it: a path from its root (`/api/download/{id}/video`). */
export const RELATIVE_URL_PATTERN = '^/(?!/)\\S*$';

/**
 * How a `legacy/<value>` submitter is named (no account stands behind it): a host name is the
 * earlier service queueing a stream by itself ("pomu.app (automatic)"), any other value one of its
 * users by the id it knew ("186447523415293952 (imported)"); the web UI's legacyName says the same.
 */
export function legacySubmitterName(value: string): string {
  const isHost = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(value) && !/^[\d.]+$/.test(value);
  return isHost ? `${value} (automatic)` : `${value} (imported)`;
}

/** A submitter as Kura keeps it: `provider/id` as given; anything else under the legacy provider. */
export function importedSubmitter(value: string): string {
  return value.includes('/') ? value : `${LEGACY_PROVIDER}/${value}`;
}

/** The origin-relative URLs of an export are resolved against this: an http(s) URL; null when `raw` is not one. */
export function parseBaseUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

/**
 * A record's download URL made absolute: an absolute URL as it is (the export names it in full), a
 * path resolved against `baseUrl` and kept only within its origin (WHATWG URLs read `/\host` as
 * `//host`, another origin). Without a base, a path is a problem (in words) naming what to give.
 */
export function resolveDownloadUrl(value: string, baseUrl: string | undefined): { url: string } | { problem: string } {
  if (!value.startsWith('/')) return { url: value };
  const given = `downloadUrl "${value.length > 80 ? `${value.slice(0, 80)}…` : value}"`;
  if (baseUrl === undefined) return { problem: `${given} is relative: give the address of the instance it came from (kura import --base-url URL)` };
  const url = URL.parse(value, baseUrl);
  if (url === null) return { problem: `${given} is not a URL once resolved against the base URL` };
  const origin = new URL(baseUrl).origin;
  if (url.origin !== origin) return { problem: `${given} resolves to ${url.origin}, outside the base URL's origin ${origin}` };
  return url.href.length > 2048 ? { problem: 'downloadUrl is longer than 2048 characters once resolved against the base URL' } : { url: url.href };
}
