import { afterEach, describe, expect, it } from 'vitest';
import { countdown, exactTime, humanHours, humanNumber, relativeTime, statsCards } from '../../web/src/lib/format.js';
import { lowDiskLines } from '../../web/src/lib/disk.js';
import { commandLineName } from '../../web/src/lib/submitter.js';
import { getLocale, overwriteGetLocale } from '../../web/src/paraglide/runtime.js';

const original = getLocale;
const speak = (locale: 'en' | 'ja') => overwriteGetLocale(() => locale);
afterEach(() => overwriteGetLocale(original));

const NOW = Date.parse('2026-11-30T12:00:00Z');
const GB = 10 ** 9;
const stats = { videoAmount: 1234, totalFileSize: 5 * GB, totalLength: 42 * 60, uniqueChannels: 7, storageBillPerMonth: 1.5, usdPerGbPerMonth: 0.023 };

describe('the web UI’s numbers, times and units in the page’s language', () => {
  it('writes English on an English page', () => {
    speak('en');
    expect(relativeTime('2026-11-30T09:00:00Z', NOW)).toBe('3 hours ago');
    expect(countdown('2026-12-02T15:04:05Z', NOW)).toBe('2 d 03:04:05');
    expect([humanHours(42 * 60), humanHours(5.2 * 3600), humanHours(1234 * 3600)]).toEqual(['42 min', '5.2 h', '1,234 h']);
    expect(exactTime('2026-11-30T09:00:00Z')).toMatch(/^Monday, November 30, 2026/);
    expect(statsCards(stats as never).map((card) => card.label)).toEqual(['streams archived or queued', 'stored', 'of video', 'channels', 'storage per month']);
    expect(commandLineName('cli/root')?.name).toBe('root (command line)');
  });

  it('writes Japanese on a Japanese page: Intl in Japanese and the unit words from the catalogue', () => {
    speak('ja');
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
