// Decisions: docs/decisions/0134-web-ui-languages-paraglide.md
// Compiles the web UI's message catalogues (web/messages/{locale}.json) with Paraglide, one
// language at a time: the base language (English) into web/src/paraglide, which the type checks
// and the dev server use, and each other language into web/src/paraglide-{locale}, which that
// language's build of the app uses instead (web/vite.config.ts, scripts/build-web.mjs). Each
// build carries its own language's words and no other's. Generated, not committed.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { compile } from '@inlang/paraglide-js';

const settings = JSON.parse(readFileSync('web/project.inlang/settings.json', 'utf8'));
for (const locale of settings.locales) {
  // a project of one language beside the real one (its paths are relative to web/)
  const project = `web/.project-${locale}.inlang`;
  mkdirSync(project, { recursive: true });
  writeFileSync(`${project}/settings.json`, JSON.stringify({ ...settings, baseLocale: locale, locales: [locale] }));
  await compile({
    project,
    outdir: locale === settings.baseLocale ? 'web/src/paraglide' : `web/src/paraglide-${locale}`,
    // one language per build: the page is in the language its HTML was sent in (the server picks
    // it from the kura-lang cookie, else Accept-Language); the switch sets the cookie and reloads
    strategy: ['baseLocale'],
    emitGitIgnore: false,
  });
  answerWithoutAsking(locale === settings.baseLocale ? 'web/src/paraglide' : `web/src/paraglide-${locale}`);
}

/**
 * A message of a one-language compile is a wrapper that asks the runtime for the locale (keeping
 * its whole locale detection, cookies, URLs and custom strategies, in every page) and then calls
 * the message of its only language; each message is made that function itself, and the app reads
 * its language from the compile's `locale.js` (written below; web/src/lib/i18n.ts). Fails if Paraglide's output
 * no longer has that shape.
 */
function answerWithoutAsking(outdir) {
  const files = readdirSync(`${outdir}/messages`).filter((name) => name.endsWith('.js') && name !== '_index.js');
  const wrapper =
    /^export const (\w+) = \/\*\*.*?\*\/ \(\(inputs(?: = \{\})?, options = \{\}\) => \{\n\texperimentalStaticLocale \?\? options\.locale \?\? getLocale\(\)\n\treturn (\w+)\(inputs\)\n\}\);/m;
  for (const name of files) {
    const file = `${outdir}/messages/${name}`;
    const code = readFileSync(file, 'utf8');
    const asking = "import { getLocale, experimentalStaticLocale } from '../runtime.js';\n";
    if (!code.includes(asking) || !wrapper.test(code)) throw new Error(`${file}: Paraglide's message no longer has the expected shape`);
    writeFileSync(file, code.replace(asking, '').replace(wrapper, 'export const $1 = $2;'));
  }
}

/** The names a message is asked with: its `{placeholders}`, and the `input`s a variant message declares. */
function inputsOf(message) {
  const texts = typeof message === 'string' ? [message] : message.flatMap((variant) => Object.values(variant.match));
  const names = new Set(texts.flatMap((text) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1])));
  if (typeof message !== 'string') {
    for (const declaration of message.flatMap((variant) => variant.declarations)) {
      const input = /^input (\w+)$/.exec(declaration);
      if (input) names.add(input[1]);
    }
  }
  return [...names];
}

// Type declarations of what the app imports, written here from the catalogue: Paraglide's own
// (emitTsDeclarations) run the TypeScript compiler over its output, several times slower than the compile
const base = JSON.parse(readFileSync(`web/messages/${settings.baseLocale}.json`, 'utf8'));
const declarations = Object.entries(base)
  .filter(([key]) => key !== '$schema')
  .map(([key, message]) => {
    const inputs = inputsOf(message);
    const argument = inputs.length === 0 ? 'inputs?: Record<string, unknown>' : `inputs: { ${inputs.map((name) => `${name}: string | number`).join('; ')} }`;
    return `export declare const ${key}: (${argument}) => string;`;
  });
for (const locale of settings.locales) {
  const outdir = locale === settings.baseLocale ? 'web/src/paraglide' : `web/src/paraglide-${locale}`;
  writeFileSync(`${outdir}/messages/_index.d.ts`, `${declarations.join('\n')}\n`);
  writeFileSync(`${outdir}/messages.d.ts`, "export * from './messages/_index.js';\nexport * as m from './messages/_index.js';\n");
  // the language of the compile, for the app to read without Paraglide's runtime (its locale
  // detection and global state would be in every page for a value the build already knows)
  writeFileSync(`${outdir}/locale.js`, `export const locale = ${JSON.stringify(locale)};\n`);
  writeFileSync(`${outdir}/locale.d.ts`, 'export declare const locale: string;\n');
}
// the inlang SDK leaves a 30-second timer behind once the project is compiled
process.exit(0);
