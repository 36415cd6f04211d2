// Decisions: docs/decisions/0132-web-ui-languages-paraglide.md
// Compiles the web UI's message catalogues (web/messages/{locale}.json) with Paraglide, one
// language at a time: the base language (English) into web/src/paraglide, which the type checks
// and the dev server use, and each other language into web/src/paraglide-{locale}, which that
// language's build of the app uses instead (web/vite.config.ts, scripts/build-web.mjs). Each
// build carries its own language's words and no other's. Generated, not committed.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
}
// the inlang SDK leaves a 30-second timer behind once the project is compiled
process.exit(0);
