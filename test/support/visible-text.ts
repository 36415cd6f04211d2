// What a person reads on a page, and which of it is in the wrong language (docs/i18n.md): the
// browser walk of test/e2e/web-languages.test.ts collects a page's texts with `readableTexts`, then
// `foreignTexts` keeps those with a word of another language once data (what the test seeded,
// URLs, ids, numbers, times, sizes) and the names that stay in Latin letters are taken out.
import type { Page } from 'playwright-core';

export type UiLanguage = 'en' | 'ja';

/** Names of things that stay in Latin letters in Japanese (docs/i18n.md), and units. */
export const LATIN_TERMS = [
  'Kura',
  'YouTube',
  'Twitch',
  'HLS',
  'URL',
  'URLs',
  'API',
  'MP4',
  'WebM',
  'Webhook',
  'Discord',
  'Standard Webhooks',
  'POST',
  'RSS',
  'Atom',
  'ID',
  'yt-dlp',
  'ffmpeg',
  'S3',
  'B',
  'kB',
  'KB',
  'MB',
  'GB',
  'TB',
  'kb/s',
  'Mb/s',
] as const;

/** One thing a person reads, and where it was: `text`, an attribute's name, `option` or `title`. */
export interface ReadableText {
  text: string;
  where: string;
}

/**
 * Everything a person reads on the page as it is now: the text of every rendered element (visually
 * hidden text a screen reader reads included), the attributes read aloud or shown (aria-label,
 * title, placeholder, alt, aria-description, aria-roledescription, a submit/button input's value),
 * each <option> of a shown <select>, and the document's title. Text inside an element that declares
 * another language than the page's (`lang`, as the switch names each language in itself) is left
 * out, and so is code (<code>, <kbd>, <samp>, <pre>).
 */
export function readableTexts(page: Page): Promise<ReadableText[]> {
  return page.evaluate(() => {
    const found: Array<{ text: string; where: string }> = [];
    const pageLang = document.documentElement.lang.toLowerCase().split('-')[0] ?? '';
    const ownLanguage = (element: Element): boolean => {
      const declared = element.closest('[lang]')?.getAttribute('lang')?.toLowerCase().split('-')[0] ?? pageLang;
      return declared === pageLang;
    };
    const shown = (element: Element): boolean => element.checkVisibility({ checkVisibilityCSS: true, visibilityProperty: true });
    const add = (text: string | null | undefined, where: string) => {
      const clean = (text ?? '').replace(/\s+/g, ' ').trim();
      if (clean !== '') found.push({ text: clean, where });
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (parent === null || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'OPTION'].includes(parent.tagName)) continue;
      // code shown as code (a header a script sends, an encoder's log) is not the UI's words
      if (parent.closest('code, kbd, samp, pre') !== null) continue;
      if (!shown(parent) || !ownLanguage(parent)) continue;
      add(node.textContent, 'text');
    }
    const attributes = ['aria-label', 'title', 'placeholder', 'alt', 'aria-description', 'aria-roledescription'];
    for (const element of Array.from(document.body.querySelectorAll('*'))) {
      if (!ownLanguage(element)) continue;
      // an element's label is read even when the element itself is drawn as something else (an icon)
      if (!shown(element) && element.tagName !== 'OPTION') continue;
      for (const name of attributes) if (element.hasAttribute(name)) add(element.getAttribute(name), name);
      if (element instanceof HTMLInputElement && ['submit', 'button', 'reset'].includes(element.type)) add(element.value, 'value');
      if (element instanceof HTMLOptionElement && element.closest('select') !== null && shown(element.closest('select') as Element))
        add(element.text, 'option');
    }
    add(document.title, 'title of the page');
    return found;
  });
}

/** How a checker finds a word of another language once data and allowed terms are taken out. */
const FOREIGN: Record<UiLanguage, RegExp> = {
  // a Japanese page: any Latin letter (full-width ones too)
  ja: /[A-Za-zＡ-Ｚａ-ｚ]/,
  // an English page: kana, CJK ideographs, Japanese punctuation and full-width forms
  en: /[\u3000-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uff01-\uff60]/,
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** `term` as a whole word: no letter or digit of the same script right before or after it. */
const asWord = (term: string) => new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(term)}(?![A-Za-z0-9])`, 'g');
const TERMS = [...LATIN_TERMS].sort((a, b) => b.length - a.length).map(asWord);

/** Data that is not the UI's words, whatever the language: taken out before looking for foreign words. */
const DATA_PATTERNS: RegExp[] = [
  // URLs and e-mail addresses
  /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi,
  /\b[\w.+-]+@[\w-]+(\.[\w-]+)+\b/g,
  // paths (/feeds/archives.atom, ./data) and files (archive.mp4)
  /(^|[\s(「“"'])\.{0,2}\/[^\s)」”"']*/g,
  /\b[\w-]+\.(mp4|webm|m3u8|m4s|ts|jpg|jpeg|png|webp|json|atom|xml|log|txt)\b/gi,
  // ids and hashes: a run of letters and digits (and _ or -) with both in it, of 6 or more
  /(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{6,}(?![\w-])/g,
  // identifiers of the API with a dot (webhook events: livestream.finished, moment.added)
  /(?<![\w.])[a-z]+(\.[a-z_]+)+(?![\w.])/g,
  // provider/user names (local/alice, discord/123456)
  /(?<![\w/])(local|discord|oidc|google|github|follow)\/[\w.-]*/g,
  // a YouTube channel id's beginning, as a placeholder shows what to type (UC…)
  /(?<![A-Za-z])UC(…|\.\.\.)/g,
  // time zones as Intl names them in a date (UTC, GMT+9)
  /(?<![A-Za-z])(UTC|GMT)([+−-]\d+(:\d\d)?)?(?![A-Za-z])/g,
  // a unit right after its number, as Japanese writes it (1GBあたり, 5.0 GB)
  /(?<=\d\s?)(kb\/s|Mb\/s|kB|KB|MB|GB|TB|PB|B)(?![A-Za-z])/g,
  // times, dates and numbers (1:02:03, 2026-01-01, 12.5, 1,024, 5 %, #42, 10×)
  /[#+−-]?\d[\d:.,/\u2009 _-]*[%×]?/g,
];

/**
 * The texts among `texts` with a word of a language other than `language`, once the `data` the
 * test knows it put there (titles, names, URLs…), data by its look and the allowed Latin terms
 * are taken out; each as it was found, once.
 */
export function foreignTexts(texts: readonly string[], language: UiLanguage, data: readonly string[] = []): string[] {
  const seeded = [...new Set(data.filter((d) => d.trim() !== ''))].sort((a, b) => b.length - a.length);
  const flagged = new Set<string>();
  for (const text of texts) {
    let rest = ` ${text} `;
    // whole: the avatar's "A" of alice is data, the A of API is not
    for (const datum of seeded) rest = rest.replace(asWord(datum), ' ');
    // the terms first: a number pattern would leave the M of MP4
    if (language === 'ja') for (const term of TERMS) rest = rest.replace(term, ' ');
    for (const pattern of DATA_PATTERNS) rest = rest.replace(pattern, ' ');
    if (FOREIGN[language].test(rest)) flagged.add(text);
  }
  return [...flagged];
}
