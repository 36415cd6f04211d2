import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

// The UI is built into the package (dist/web) and served by the api; `npm run dev:web` proxies
// the api of a `kura serve` on :8080. hls.js's full build (620 kB, loaded only to play a live
// record's audio rendition) is the one chunk over Vite's 500-kB warning.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [svelte()],
  build: { outDir: '../dist/web', emptyOutDir: true, assetsDir: 'assets', target: 'es2022', reportCompressedSize: false, chunkSizeWarningLimit: 650 },
  server: { proxy: { '/api': 'http://127.0.0.1:8080', '/auth': 'http://127.0.0.1:8080' } },
});
