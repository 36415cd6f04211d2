// Decisions: docs/decisions/0061-atom-feeds.md
const XML_ESCAPES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' };
/** Characters XML 1.0 cannot carry at all (C0 controls but tab and line ends, U+FFFE, U+FFFF, lone surrogates). */
// eslint-disable-next-line no-control-regex -- these control characters are what it must find
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text for XML element content or a quoted attribute: markup escaped, characters XML cannot hold dropped. */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML, '').replace(/[<>&"']/g, (c) => XML_ESCAPES[c] as string);
}
