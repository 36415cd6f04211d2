// Decisions: docs/decisions/0132-web-ui-languages-paraglide.md
// Compiles the web UI's message catalogues (web/messages/{locale}.json) with Paraglide into
// web/src/paraglide (generated, not committed): one tree-shakable function per message, with type
// declarations for svelte-check. The build, the type checks and `npm run dev:web` run it first.
import { compile } from '@inlang/paraglide-js';

await compile({
  project: 'web/project.inlang',
  outdir: 'web/src/paraglide',
  // a person's pick (the nav's switch, a cookie the server reads too), else the browser's languages
  strategy: ['cookie', 'preferredLanguage', 'baseLocale'],
  cookieName: 'kura-lang',
  emitTsDeclarations: true,
  emitGitIgnore: false,
});
// the inlang SDK leaves a 30-second timer behind once the project is compiled
process.exit(0);
