import { createSearch } from '../../src/wiring/search.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from './app.js';
import { buildRecord } from './factories.js';

/**
 * The app the tests that drive every operation of /api/openapi.json probe: the built-in search
 * engine on, a finished record `known-1`, and `imported-upcoming`, an unfinished imported record
 * whose video is kept elsewhere.
 */
export async function startProbedApp(): Promise<TestApp> {
  const kura = await startTestApp({}, {}, { search: (db, feed) => createSearch({ search: { kind: 'builtin' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) });
  await kura.load([
    buildRecord({ id: 'known-1' }),
    buildRecord({ id: 'imported-upcoming', finished: false, downloadUrl: 'https://archive.example.org/imported-upcoming.mp4' }),
  ]);
  return kura;
}
