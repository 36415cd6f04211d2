// Decisions: docs/decisions/0134-web-ui-languages-paraglide.md
// Builds the web app once per language into dist/web: the languages share the assets directory
// (their chunks differ in name wherever their words differ), and each has its own
// index.{locale}.html, which the server sends for the request's language.
import { readFileSync, renameSync } from 'node:fs';
import { build } from 'vite';

const { locales } = JSON.parse(readFileSync('web/project.inlang/settings.json', 'utf8'));
for (const [index, locale] of locales.entries()) {
  process.env.KURA_LOCALE = locale; // web/vite.config.ts points the app's messages at web/src/paraglide-{locale}
  await build({
    configFile: 'web/vite.config.ts',
    logLevel: 'warn',
    // the bundler's timing report (printed when a loaded machine builds slowly) is no warning of ours
    build: { emptyOutDir: index === 0, rolldownOptions: { checks: { bundlerTimings: false } } },
  });
  renameSync('dist/web/index.html', `dist/web/index.${locale}.html`);
}
