// Decisions: docs/decisions/0134-web-ui-languages-paraglide.md
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PAGE_LOCALES, type PageLocale } from './page-language.js';

/** A catalogue message: a string with `{placeholders}`, or the inlang variant form (plurals). */
type Message = string | Array<{ declarations: string[]; selectors: string[]; match: Record<string, string> }>;
type Inputs = Record<string, string | number>;

/** The words of the server's own HTML (`page_` messages) in one language. */
export type PageText = (key: string, inputs?: Inputs) => string;

/**
 * The web UI's catalogues (web/messages/{locale}.json, the ones Paraglide compiles for the app),
 * read once: the server's HTML (titles, link previews) says what the app would, in the same words.
 */
export function loadPageMessages(messagesDir: string): (locale: PageLocale) => PageText {
  const catalogues = new Map(
    PAGE_LOCALES.map((locale) => [locale, JSON.parse(readFileSync(path.join(messagesDir, `${locale}.json`), 'utf8')) as Record<string, Message>]),
  );
  return (locale) =>
    (key, inputs = {}) => {
      const message = catalogues.get(locale)?.[key] ?? catalogues.get('en')?.[key];
      if (message === undefined) throw new Error(`no message ${key} in web/messages`);
      return fill(typeof message === 'string' ? message : chooseVariant(message, locale, inputs), inputs);
    };
}

function fill(text: string, inputs: Inputs): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in inputs ? String(inputs[name]) : whole));
}

/** The variant a plural selector picks (`local countPlural = count: plural`, matched as `countPlural=one`). */
function chooseVariant(message: Exclude<Message, string>, locale: PageLocale, inputs: Inputs): string {
  const [variant] = message;
  if (variant === undefined) return '';
  const selected = new Map<string, string>();
  for (const declaration of variant.declarations) {
    const local = /^local (\w+) = (\w+): plural$/.exec(declaration);
    if (local) selected.set(local[1] as string, new Intl.PluralRules(locale).select(Number(inputs[local[2] as string])));
  }
  const key = variant.selectors.map((selector) => `${selector}=${selected.get(selector) ?? '*'}`).join(', ');
  const other = variant.selectors.map((selector) => `${selector}=other`).join(', ');
  return variant.match[key] ?? variant.match[other] ?? Object.values(variant.match)[0] ?? '';
}
