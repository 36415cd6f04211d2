import { describe, expect, it } from 'vitest';
import { changelogRss, parseChangelog } from '../../src/http/meta/changelog.js';

const SAMPLE = `# Changelog

## [0.2.0] - 2026-12-01

### Changed
- \`limit\` above 100 clamps & says so <really>

## [0.1.0] - 2026-11-22

### Added
- History.
- Stats.
`;

describe('changelog', () => {
  it('parses releases, kinds and changes in order', () => {
    expect(parseChangelog(SAMPLE)).toEqual([
      { version: '0.2.0', date: '2026-12-01', changes: [{ kind: 'Changed', text: '`limit` above 100 clamps & says so <really>' }] },
      {
        version: '0.1.0',
        date: '2026-11-22',
        changes: [
          { kind: 'Added', text: 'History.' },
          { kind: 'Added', text: 'Stats.' },
        ],
      },
    ]);
  });

  it('leaves out the changes under "Unreleased" until they are released', () => {
    const withUnreleased = SAMPLE.replace('## [0.2.0]', '## [Unreleased]\n\n### Part one\n- Not yet.\n\n## [0.2.0]');
    expect(parseChangelog(withUnreleased)).toEqual(parseChangelog(SAMPLE));
  });

  it('refuses a change outside a release section', () => {
    expect(() => parseChangelog('# Changelog\n- stray\n')).toThrow(/line 2/);
  });

  it('renders RSS 2.0 with escaped text and RFC 822 dates', () => {
    const rss = changelogRss(parseChangelog(SAMPLE), 'https://kura.example');
    expect(rss).toContain('<pubDate>Tue, 01 Dec 2026 00:00:00 GMT</pubDate>');
    expect(rss).toContain('&amp;lt;really&amp;gt;');
    expect(rss).not.toContain('<really>');
    expect(rss.match(/<item>/g)).toHaveLength(2);
  });
});
