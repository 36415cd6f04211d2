// Decisions: docs/decisions/0134-web-ui-languages-paraglide.md
import type { FastifyRequest } from 'fastify';

/** The languages the web UI speaks (web/project.inlang/settings.json), English first as the fallback. */
export const PAGE_LOCALES = ['en', 'ja'] as const;
export type PageLocale = (typeof PAGE_LOCALES)[number];

/** The cookie the UI's language switch sets (web/src/lib/i18n.ts, chooseLanguage). */
const LANGUAGE_COOKIE = 'kura-lang';

const isPageLocale = (tag: string): tag is PageLocale => (PAGE_LOCALES as readonly string[]).includes(tag);

/**
 * The language of a page load, as the app will pick it: the person's choice (the cookie), else the
 * first language of Accept-Language that Kura speaks (by weight; `ja-JP` is `ja`), else English.
 */
export function pageLocale(request: Pick<FastifyRequest, 'headers' | 'cookies'>): PageLocale {
  const chosen = request.cookies?.[LANGUAGE_COOKIE];
  if (chosen !== undefined && isPageLocale(chosen)) return chosen;
  return acceptedLocale(request.headers['accept-language']) ?? 'en';
}

/**
 * The first language of an Accept-Language header Kura speaks, by the header's weights; null for
 * none. A range whose weight is not one RFC 9110 allows (`q=0` to `q=1`, three decimals at most) is
 * left out, as the header says nothing sure about it.
 */
function acceptedLocale(header: string | undefined): PageLocale | null {
  if (header === undefined) return null;
  const ranges = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const weights = params.map((p) => p.trim()).filter((p) => /^q=/i.test(p));
      const q = weights.length === 0 ? '1' : /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i.exec(weights[0] ?? '')?.[1];
      return { base: tag.trim().toLowerCase().split('-')[0] ?? '', weight: q === undefined ? 0 : Number(q), index };
    })
    .filter((range) => range.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  return ranges.map((range) => range.base).find(isPageLocale) ?? null;
}
