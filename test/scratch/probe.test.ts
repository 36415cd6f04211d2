import { afterAll, beforeAll, it } from 'vitest';
import { createSearch } from '../../src/search-wiring.js';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { addUser, logIn, createToken } from '../support/accounts.js';
let kura: TestApp;
beforeAll(async () => {
  kura = await startTestApp({}, {}, { search: (db, feed) => createSearch({ search: { kind: 'builtin' }, publicUrl: TEST_PUBLIC_URL }, db.pool, feed) });
});
afterAll(() => kura.close());
it('probe', async () => {
  await addUser(kura, 'root', { admin: true });
  const { token } = await createToken(kura, await logIn(kura, 'root'));
  const key = (await kura.app.inject({ url: '/api/search' })).json().apiKey;
  const auth = { authorization: `Bearer ${token}` };
  const s = { authorization: `Bearer ${key}` };
  const cases: any[] = [
    { url: '/api/history?page=Infinity' }, { url: '/api/history?page=-Infinity' }, { url: '/api/history?limit=-Infinity' }, { url: '/api/history?limit=-1e400' },
    { url: '/api/history?page=0x10' }, { url: '/api/history?page=%205' }, { url: '/api/history?page=5.0' }, { url: '/api/history?page=1e3' }, { url: '/api/history?page=1&page=2' },
    { url: '/api/logz?url=%00' }, { url: '/api/user/local/%00' }, { url: '/api/video/%FF' }, { url: '/api/video/' + 'a'.repeat(101) },
    { url: '/api/search-engine/indexes/' + 'a'.repeat(101), headers: s },
    { url: '/api/search-engine/indexes/%FF', headers: s },
    { url: '/api/search-engine/indexes/kura/search?q=%00', headers: s },
    { method: 'POST', url: '/api/search-engine/indexes/kura/search', payload: { q: 'a\u0000b' }, headers: s },
    { method: 'POST', url: '/api/search-engine/multi-search', payload: { queries: [{ indexUid: 'kura', q: 'a\u0000b' }] }, headers: s },
    { method: 'POST', url: '/api/search-engine/indexes/kura/search', payload: '', headers: { ...s, 'content-type': 'application/json' } },
    { method: 'POST', url: '/api/search-engine/indexes/kura/search', payload: '[1]', headers: { ...s, 'content-type': 'application/json' } },
    { method: 'POST', url: '/api/tokens', payload: { name: 'a\u0000b' }, headers: auth },
    { method: 'POST', url: '/api/tokens', payload: '', headers: { ...auth, 'content-type': 'application/json' } },
    { method: 'POST', url: '/api/tokens', payload: '[]', headers: { ...auth, 'content-type': 'application/json' } },
    { method: 'POST', url: '/api/submit', payload: '', headers: { ...auth, 'content-type': 'application/json' } },
    { method: 'POST', url: '/api/submit', payload: '"x"', headers: { ...auth, 'content-type': 'application/json' } },
    { method: 'POST', url: '/api/submit', payload: 'x', headers: { ...auth, 'content-type': 'text/xml' } },
    { method: 'POST', url: '/api/submit', payload: '{"videoUrl":"' + 'a'.repeat(1100000) + '"}', headers: { ...auth, 'content-type': 'application/json' } },
    { method: 'POST', url: '/api/submit', payload: '{bad', headers: { ...auth, 'content-type': 'application/json' } },
    { method: 'POST', url: '/api/submit', payload: '{"videoUrl": 1e400}', headers: { ...auth, 'content-type': 'application/json' } },
    { method: 'POST', url: '/auth/local', payload: { username: 'a\u0000', password: 'x' }, headers: { origin: TEST_PUBLIC_URL } },
    { url: '/auth/local/login?next=%00' },
  ];
  for (const c of cases) {
    const r = await kura.app.inject(c);
    console.log(c.method ?? 'GET', c.url.slice(0, 80), String(c.payload ?? '').slice(0, 40), '→', r.statusCode, r.headers['content-type'], r.body.slice(0, 200));
  }
});
