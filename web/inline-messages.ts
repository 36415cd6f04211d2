// Writes the build's messages without inputs into the app's code as their text (web/vite.config.ts
// runs it before Svelte compiles a component): each language is a build of its own, so such a
// message is a constant of the build, and a page pays for its words rather than for a function per
// word. Messages with inputs stay Paraglide's functions: written at each call as template literals,
// they made the first load of /history larger, not smaller (bench/RESULTS.md).

type Catalogue = Record<string, unknown>;

/** The message's text if it has neither variants nor inputs, else null. */
const constant = (catalogue: Catalogue, key: string): string | null => {
  const text = catalogue[key];
  return typeof text === 'string' && !/\{\w+\}/.test(text) ? text : null;
};

/** Text as markup Svelte reads back as the same text (an entity for each character it would read otherwise). */
const asMarkup = (text: string) => text.replace(/[&<{}"]/g, (c) => `&#${c.charCodeAt(0)};`);
/** Svelte folds a text's leading, trailing and repeated spaces: such a text stays an expression. */
const foldable = (text: string) => /^\s|\s$|\s\s|\n/.test(text);

/**
 * In a component's markup (outside its script and style), a tag or an attribute that is only a
 * message without inputs (`{m.key()}`, `label={m.key()}`) becomes static text, which Svelte writes
 * into the element's template instead of setting it from code.
 */
function inMarkup(code: string, catalogue: Catalogue): string {
  return code
    .split(/(<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>)/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/(\s[\w:-]+)=\{m\.(\w+)\(\)\}/g, (tag, name: string, key: string) => {
              const text = constant(catalogue, key);
              return text === null ? tag : `${name}="${asMarkup(text)}"`;
            })
            .replace(/\{m\.(\w+)\(\)\}/g, (tag, key: string) => {
              const text = constant(catalogue, key);
              return text === null || foldable(text) ? tag : asMarkup(text);
            }),
    )
    .join('');
}

/** Each `m.key()` of `code` whose message is a plain text without inputs, written as that text. */
function asText(code: string, catalogue: Catalogue): string {
  return code.replace(/(?<![\w.$])m\.(\w+)\(\)/g, (call, key: string) => {
    const text = constant(catalogue, key);
    return text === null ? call : JSON.stringify(text);
  });
}

/** The app's source with the messages of `catalogue` written in as text: a `.svelte` component's or a module's. */
export function inlineMessages(code: string, catalogue: Catalogue, svelte: boolean): string {
  return asText(svelte ? inMarkup(code, catalogue) : code, catalogue);
}
