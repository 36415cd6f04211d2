import { afterEach, describe, expect, it, vi } from 'vitest';

// Each language is a build of its own (scripts/build-web.mjs): the Japanese one takes its messages
// and its language from web/src/paraglide-ja, as Vite's alias does for it (web/vite.config.ts).
async function inLanguage(locale: 'en' | 'ja') {
  vi.resetModules();
  if (locale === 'ja') {
    vi.doMock('../../web/src/paraglide/messages.js', () => import('../../web/src/paraglide-ja/messages.js'));
    vi.doMock('../../web/src/paraglide/locale.js', () => import('../../web/src/paraglide-ja/locale.js'));
  }
  const [format, totals, disk, submitter] = await Promise.all([
    import('../../web/src/lib/format.js'),
    import('../../web/src/lib/totals.js'),
    import('../../web/src/lib/disk.js'),
    import('../../web/src/lib/submitter.js'),
  ]);
  return { ...format, ...totals, ...disk, ...submitter };
}
// the test files share their modules (vitest.config.ts): the next one imports the English build again
afterEach(() => {
  vi.doUnmock('../../web/src/paraglide/messages.js');
  vi.doUnmock('../../web/src/paraglide/locale.js');
  vi.resetModules();
});

const NOW = Date.parse('2026-11-30T12:00:00Z');
const GB = 10 ** 9;
const stats = { videoAmount: 1234, totalFileSize: 5 * GB, totalLength: 42 * 60, uniqueChannels: 7, storageBillPerMonth: 1.5, usdPerGbPerMonth: 0.023 };

describe('the web UI’s numbers, times and units in the page’s language', () => {
  it('writes English on an English page', async () => {
    const { relativeTime, countdown, humanHours, exactTime, statsCards, commandLineName } = await inLanguage('en');
    expect(relativeTime('2026-11-30T09:00:00Z', NOW)).toBe('3 hours ago');
    expect(countdown('2026-12-02T15:04:05Z', NOW)).toBe('2 d 03:04:05');
    expect([humanHours(42 * 60), humanHours(5.2 * 3600), humanHours(1234 * 3600)]).toEqual(['42 min', '5.2 h', '1,234 h']);
    expect(exactTime('2026-11-30T09:00:00Z')).toMatch(/^Monday, November 30, 2026/);
    expect(statsCards(stats as never).map((card) => card.label)).toEqual(['streams archived or queued', 'stored', 'of video', 'channels', 'storage per month']);
    expect(commandLineName('cli/root')?.name).toBe('root (command line)');
  });

  it('writes Japanese on a Japanese page: Intl in Japanese and the unit words from the catalogue', async () => {
    const { relativeTime, countdown, humanHours, humanNumber, exactTime, statsCards, lowDiskLines } = await inLanguage('ja');
    expect(relativeTime('2026-11-30T09:00:00Z', NOW)).toBe('3 時間前');
    expect(countdown('2026-12-02T15:04:05Z', NOW)).toBe('2日 03:04:05');
    expect([humanHours(42 * 60), humanHours(5.2 * 3600), humanHours(1234 * 3600)]).toEqual(['42分', '5.2時間', '1,234時間']);
    expect(humanNumber(1234)).toBe('1,234');
    expect(exactTime('2026-11-30T09:00:00Z')).toMatch(/^2026年11月30日月曜日/);
    expect(statsCards(stats as never)[4]?.note).toBe('1GBあたり$0.023');
    const low = { place: 'archive' as const, workerId: null, freeBytes: 5 * GB, totalBytes: 200 * GB, freePercent: 2.5 };
    const disk = { archive: { storage: 's3' as const }, archivedBytesLast30Days: 0, spools: [], low: [low] };
    expect(lowDiskLines(disk)).toEqual(['アーカイブのストレージ：空き5.0 GB／200 GB（2.5%）']);
  });
});
