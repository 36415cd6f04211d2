// Decisions: docs/decisions/0005-openapi-and-changelog.md
import { escapeXml } from '../xml.js';

/** One release of the API, as CHANGELOG.md ("Keep a Changelog" format) describes it. */
export interface ChangelogRelease {
  version: string;
  /** YYYY-MM-DD */
  date: string;
  changes: Array<{ kind: string; text: string }>;
}

const RELEASE_HEADING = /^## \[?([^\]\s]+)\]?\s+-\s+(\d{4}-\d{2}-\d{2})\s*$/;
/** Changes merged but not yet released: kept in the file, not yet announced by the API. */
const UNRELEASED_HEADING = /^## \[?Unreleased\]?\s*$/i;
const KIND_HEADING = /^### (.+?)\s*$/;
const BULLET = /^[-*] (.+)$/;

/**
 * Parses the changelog's releases, newest first as written; an `## [Unreleased]` section is
 * skipped. Throws on a bullet outside a section.
 */
export function parseChangelog(markdown: string): ChangelogRelease[] {
  const releases: ChangelogRelease[] = [];
  let kind: string | null = null;
  let unreleased = false;
  for (const [index, line] of markdown.split(/\r?\n/).entries()) {
    const release = RELEASE_HEADING.exec(line);
    if (release) {
      releases.push({ version: release[1] as string, date: release[2] as string, changes: [] });
      kind = null;
      unreleased = false;
      continue;
    }
    if (UNRELEASED_HEADING.test(line)) unreleased = true;
    if (unreleased) continue;
    const heading = KIND_HEADING.exec(line);
    if (heading) {
      kind = heading[1] as string;
      continue;
    }
    const bullet = BULLET.exec(line);
    if (bullet) {
      const current = releases.at(-1);
      if (current === undefined || kind === null)
        throw new Error(`CHANGELOG.md line ${index + 1}: a change must sit under "## [version] - date" and "### Kind"`);
      current.changes.push({ kind, text: bullet[1] as string });
    }
  }
  return releases;
}

/** The changelog as an RSS 2.0 feed, one item per release. */
export function changelogRss(releases: ChangelogRelease[], publicUrl: string): string {
  const items = releases.map((release) => {
    const list = release.changes.map((c) => `<li>${escapeXml(`${c.kind}: ${c.text}`)}</li>`).join('');
    return [
      '<item>',
      `<title>Kura API ${escapeXml(release.version)}</title>`,
      `<link>${escapeXml(`${publicUrl}/api/changelog#${release.version}`)}</link>`,
      `<guid isPermaLink="false">kura-api-${escapeXml(release.version)}</guid>`,
      `<pubDate>${new Date(`${release.date}T00:00:00Z`).toUTCString()}</pubDate>`,
      `<description>${escapeXml(`<ul>${list}</ul>`)}</description>`,
      '</item>',
    ].join('');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0"><channel>',
    '<title>Kura API changelog</title>',
    `<link>${escapeXml(`${publicUrl}/api/changelog`)}</link>`,
    '<description>Changes to the Kura HTTP API</description>',
    ...items,
    '</channel></rss>',
    '',
  ].join('\n');
}
