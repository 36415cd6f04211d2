import { describe, expect, it } from 'vitest';
import { inlineMessages } from '../../web/inline-messages.js';

// the build writes a message without inputs into the app as its text (web/vite.config.ts): what a
// person reads must be the catalogue's text exactly, whatever characters it holds
const catalogue = {
  title: 'History',
  braces: 'a } b { & <c> "d"',
  spaced: ' · ',
  sized: '{count} streams',
  plural: [{ declarations: ['input count'], selectors: [], match: { 'count=one': 'one', 'count=other': 'many' } }],
};

describe('messages written into the build as their text', () => {
  it('makes a tag or an attribute that is only a message static markup, entities where Svelte would read markup', () => {
    const out = inlineMessages('<h1>{m.title()}</h1>\n<button aria-label={m.braces()}>{m.braces()}</button>', catalogue, true);
    expect(out).toBe('<h1>History</h1>\n<button aria-label="a &#125; b &#123; &#38; &#60;c> &#34;d&#34;">a &#125; b &#123; &#38; &#60;c> &#34;d&#34;</button>');
  });

  it('keeps a text Svelte would fold the spaces of as an expression, with its spaces', () => {
    expect(inlineMessages('<span>{m.spaced()}</span>', catalogue, true)).toBe('<span>{" · "}</span>');
  });

  it('writes a call in a script as a string literal, and leaves messages with inputs or variants to Paraglide', () => {
    const script =
      '<script lang="ts">\n  const a = m.title();\n  const b = `x${m.title()}`;\n  const c = m.sized({ count: 2 }) + m.plural({ count });\n</script>\n';
    expect(inlineMessages(script, catalogue, true)).toBe(
      '<script lang="ts">\n  const a = "History";\n  const b = `x${"History"}`;\n  const c = m.sized({ count: 2 }) + m.plural({ count });\n</script>\n',
    );
    expect(inlineMessages('title = m.title(); other = item.m.title(); f = m.title;', catalogue, false)).toBe(
      'title = "History"; other = item.m.title(); f = m.title;',
    );
  });

  it('leaves a key the catalogue does not have as the call, for the type check to name', () => {
    expect(inlineMessages('<p>{m.missing()}</p>', catalogue, true)).toBe('<p>{m.missing()}</p>');
  });
});
