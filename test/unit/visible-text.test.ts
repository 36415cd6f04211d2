import { describe, expect, it } from 'vitest';
import { foreignTexts, LATIN_TERMS } from '../support/visible-text.js';

// The checker the browser walk of every page in each language relies on (test/e2e/web-languages.test.ts):
// it must flag the UI's own words in the wrong language, and pass data and the allowed terms.
const SEEDED = ['【歌枠】Evening songs 夜の歌 #7', 'Lang Channel 言語', 'alice', 'A'];

describe('foreignTexts on a Japanese page', () => {
  it('flags English words, alone or with numbers', () => {
    const texts = ['Download', '3 hours ago', 'ダウンロード (12.5 MB) Log in', 'Next →', 'Ｄｏｗｎｌｏａｄ'];
    expect(foreignTexts(texts, 'ja')).toEqual(texts);
  });

  it('passes Japanese, the allowed terms, numbers, times, dates, sizes, URLs, paths, ids and seeded data', () => {
    const texts = [
      '「ダウンロード」',
      'YouTube',
      'YouTubeのURL',
      '1:02:03',
      '12.5 MB',
      '1GBあたり$0.023',
      '3時間前',
      '2026/01/01 12:00',
      '2026年11月30日月曜日 14:19:21 UTC',
      'UC…',
      'KuraはStandard Webhooksの署名付きでPOSTします',
      'A',
      '5 %',
      '640 kb/s',
      'https://x.example/a',
      '/feeds/archives.atom',
      'archive.mp4',
      'rec00000009',
      'UClangChannel0000000001',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      'livestream.finished',
      'local/alice が登録',
      '【歌枠】Evening songs 夜の歌 #7',
      'Lang Channel 言語 のアーカイブ',
      'yt-dlp と ffmpeg',
      'Kura',
      LATIN_TERMS.join('・'),
    ];
    expect(foreignTexts(texts, 'ja', SEEDED)).toEqual([]);
  });

  it('takes out only whole terms and whole seeded strings', () => {
    // "Kurator" is not Kura, "IDs" not ID, "Evening songs" is not the seeded title it is part of,
    // "Aside" not the seeded avatar letter A, "malice" not alice
    const texts = ['Kurator', 'IDの一覧 IDs', 'Evening songs', 'Aside', 'malice'];
    expect(foreignTexts(texts, 'ja', SEEDED)).toEqual(texts);
  });
});

describe('foreignTexts on an English page', () => {
  it('flags Japanese words and punctuation', () => {
    const texts = ['ダウンロード', 'Download 動画', '3時間前', 'Saved。'];
    expect(foreignTexts(texts, 'en')).toEqual(texts);
  });

  it('passes English and seeded Japanese data', () => {
    expect(foreignTexts(['Download video (12.5 MB)', '3 hours ago', '【歌枠】Evening songs 夜の歌 #7', 'by alice'], 'en', SEEDED)).toEqual([]);
  });
});
