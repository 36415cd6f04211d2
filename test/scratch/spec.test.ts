import { afterAll, beforeAll, it } from 'vitest';
import { createSearch } from '../../src/search-wiring.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { writeFileSync } from 'node:fs';
let kura: TestApp;
beforeAll(async () => {
  kura = await startTestApp({}, {}, { search: (db, feed) => createSearch({ search: { kind: 'builtin' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) });
});
afterAll(() => kura.close());
it('spec', async () => {
  const spec = (await kura.app.inject({ url: '/api/openapi.json' })).json();
  writeFileSync('/tmp/edges-spec.json', JSON.stringify(spec, null, 1));
  for (const [p, ops] of Object.entries<any>(spec.paths)) console.log(p, Object.entries<any>(ops).map(([m, o]) => `${m}:${o.operationId ?? '-'}`).join(' '));
  writeFileSync('/tmp/edges-routes.txt', kura.app.printRoutes({ commonPrefix: false }));
});
