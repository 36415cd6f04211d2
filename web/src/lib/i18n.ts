// Decisions: docs/decisions/0132-web-ui-languages-paraglide.md
// The UI's language: every string a person reads is a message of web/messages/{locale}.json,
// compiled by Paraglide into web/src/paraglide (scripts/compile-messages.mjs). The language is
// the person's pick (the nav's switch, remembered in the `kura-lang` cookie the server reads too)
// or else the browser's first language Kura speaks, else English.
import { getLocale, locales, setLocale, type Locale } from '../paraglide/runtime.js';

export { m } from '../paraglide/messages.js';
export { getLocale, locales, type Locale };

/** Each language by its own name, as the switch lists it. */
export const LANGUAGE_NAMES: Record<Locale, string> = { en: 'English', ja: '日本語' };

/** Switches the UI to `locale` and remembers it: the page loads again in that language. */
export function chooseLanguage(locale: Locale): void {
  setLocale(locale);
}

/**
 * Splits a sentence around where a piece of markup goes (a link, a bold name): the message is
 * asked with MARK as that placeholder's value, so each language places the piece where its word
 * order wants it. `const [before, after] = around(m.key({ link: MARK }))`.
 */
export const MARK = '\u2063';
export function around(text: string): [string, string] {
  const at = text.indexOf(MARK);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + MARK.length)];
}
