import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildRecords } from '../support/factories.js';

// KURA_ORIGINAL_HEADERS=true: the paginated lists also send the original service's headers, which
// its web client reads (off by default: history.test.ts and meta.test.ts see Kura's alone).
let kura: TestApp;
beforeAll(async () => {
  kura = await startTestApp({ originalHeaders: true });
  await kura.load(buildRecords(30, { unfinishedEvery: 10 }));
});
afterAll(() => kura.close());

const pagination = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => name.includes('-pagination-')));

describe('the original service’s pagination headers', () => {
  it('go beside Kura’s, with the same values, on every route that pages, and are exposed to other origins', async () => {
    const history = await kura.app.inject({ url: '/api/history?limit=10', headers: { origin: 'https://viewer.example' } });
    expect(pagination(history.headers)).toEqual({
      'x-kura-pagination-total': '27',
      'x-kura-pagination-has-more': 'true',
      'x-pomu-pagination-total': '27',
      'x-pomu-pagination-has-more': 'true',
    });
    expect(history.headers['access-control-expose-headers']).toBe(
      'x-kura-pagination-total, x-kura-pagination-has-more, x-pomu-pagination-total, x-pomu-pagination-has-more, x-kura-integrity',
    );
    const lastPage = await kura.app.inject({ url: '/api/history?limit=10&page=2' });
    expect([lastPage.headers['x-pomu-pagination-total'], lastPage.headers['x-pomu-pagination-has-more']]).toEqual(['27', 'false']);
    const channels = await kura.app.inject({ url: '/api/channels?limit=1' });
    expect(channels.headers['x-pomu-pagination-total']).toBe(channels.headers['x-kura-pagination-total']);
    expect(channels.headers['x-pomu-pagination-has-more']).toBe('true');
  });

  it('are declared in the OpenAPI document where the route’s headers are', async () => {
    const spec = (await kura.app.inject({ url: '/api/openapi.json' })).json();
    for (const path of ['/api/history', '/api/channels']) {
      expect(Object.keys(spec.paths[path].get.responses['200'].headers), path).toEqual([
        'x-kura-pagination-total',
        'x-kura-pagination-has-more',
        'x-pomu-pagination-total',
        'x-pomu-pagination-has-more',
      ]);
    }
  });
});
