import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';
import { inlineMessages } from './inline-messages.js';

/**
 * The message catalogues go beside index.html (dist/web/messages), for the server's own HTML: an
 * archive's link preview and a page's title in the request's language, in the app's words.
 */
function catalogues(): Plugin {
  const dir = path.join(import.meta.dirname, 'messages');
  return {
    name: 'kura-catalogues',
    generateBundle() {
      for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
        this.emitFile({ type: 'asset', fileName: `messages/${file}`, source: readFileSync(path.join(dir, file), 'utf8') });
      }
    },
  };
}

/**
 * The language this build is of (scripts/build-web.mjs builds one per language; `KURA_LOCALE=ja
 * npm run dev:web` for the dev server): the app's messages come from web/src/paraglide-{locale}
 * instead of the base language's web/src/paraglide (scripts/compile-messages.mjs).
 */
const locale = process.env.KURA_LOCALE ?? 'en';
const messagesOf = locale === 'en' ? [] : [{ find: /^\.\.\/paraglide\//, replacement: `${path.join(import.meta.dirname, 'src', `paraglide-${locale}`)}/` }];

/** The build's language's messages written into the app's code as their text (web/inline-messages.ts). */
function messagesAsText(): Plugin {
  const catalogue = JSON.parse(readFileSync(path.join(import.meta.dirname, 'messages', `${locale}.json`), 'utf8')) as Record<string, unknown>;
  return {
    name: 'kura-inline-messages',
    enforce: 'pre',
    apply: 'build',
    transform(code, id) {
      if (!/\/web\/src\/(?!paraglide).*\.(svelte|ts)$/.test(id) || !code.includes('m.')) return null;
      return inlineMessages(code, catalogue, id.endsWith('.svelte'));
    },
  };
}

// The UI is built into the package (dist/web) and served by the api; `npm run dev:web` proxies
// the api of a `kura serve` on :8080. hls.js's full build (620 kB, loaded only to play a live
// record's audio rendition) is the one chunk over Vite's 500-kB warning.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [messagesAsText(), svelte(), catalogues()],
  resolve: { alias: messagesOf },
  build: { outDir: '../dist/web', emptyOutDir: true, assetsDir: 'assets', target: 'es2022', reportCompressedSize: false, chunkSizeWarningLimit: 650 },
  server: { proxy: { '/api': 'http://127.0.0.1:8080', '/auth': 'http://127.0.0.1:8080' } },
});
