// Decisions: docs/decisions/0134-web-ui-languages-paraglide.md
// The UI's language: every string a person reads is a message of web/messages/{locale}.json,
// compiled by Paraglide (scripts/compile-messages.mjs). Each language is a build of its own
// (scripts/build-web.mjs): the server sends the page in the person's pick (the nav's switch,
// remembered in the `kura-lang` cookie), else the browser's first language Kura speaks, else
// English, and the page is in the language of the build it loaded.
import { locale } from '../paraglide/locale.js';

export { m } from '../paraglide/messages.js';

/** The languages Kura speaks, each by its own name, as the switch lists them. */
export const LANGUAGES = { en: 'English', ja: '日本語' } as const;
export type Language = keyof typeof LANGUAGES;

/** The language of this page, for `<html lang>` and every `Intl` format: its build's, the one language compiled into it. */
export const getLocale = (): Language => locale as Language;

const LANGUAGE_COOKIE = 'kura-lang';

/** Switches the UI to `choice` and remembers it for 400 days: the page loads again, in that language's build. */
export function chooseLanguage(choice: Language): void {
  document.cookie = `${LANGUAGE_COOKIE}=${choice}; path=/; max-age=${400 * 86_400}; samesite=lax`;
  location.reload();
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
