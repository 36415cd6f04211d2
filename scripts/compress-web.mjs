// Decisions: docs/decisions/0062-web-ui-svelte-vite.md
// Writes .gz and .br beside each built web asset, so the api sends them compressed (@fastify/static preCompressed).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dir = path.join('dist', 'web', 'assets');
for (const name of readdirSync(dir)) {
  if (!/\.(js|css|svg)$/.test(name)) continue;
  const file = path.join(dir, name);
  const bytes = readFileSync(file);
  writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
  writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
}
