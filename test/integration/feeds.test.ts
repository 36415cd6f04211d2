import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/app.js';
import { buildRecord, buildRecords, type HistoryRecordJson } from '../support/factories.js';
import { parseFeed } from '../support/feed-parser.js';

let kura: TestApp;
// 70 records an hour apart over 50 channels: every 7th (10 of them) upcoming, 60 finished
const records = buildRecords(70, { unfinishedEvery: 7 });
const CHANNEL = records[3]?.channelId as string;

beforeAll(async () => {
  kura = await startTestApp();
  await kura.load(records);
});
afterAll(() => kura.close());

async function get(url: string, headers: Record<string, string> = {}) {
  return kura.app.inject({ method: 'GET', url, headers });
}

async function feed(url: string) {
  const response = await get(url);
  expect(response.statusCode, url).toBe(200);
  expect(response.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
  expectAtomStructure(response.body);
  return parseFeed(response.body, `${TEST_PUBLIC_URL}${url}`);
}

/** What RFC 4287 requires of a feed and its entries, read from the document itself. */
function expectAtomStructure(xml: string): void {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'entry' || name === 'link' });
  const doc = parser.parse(xml, true) as { feed: Record<string, unknown> & { link: Array<Record<string, string>>; entry?: Array<Record<string, unknown>> } };
  expect(doc.feed.xmlns).toBe('http://www.w3.org/2005/Atom');
  for (const field of ['id', 'title', 'updated']) expect(doc.feed[field], `feed ${field}`).toBeTruthy();
  expect(doc.feed.link.some((l) => l.rel === 'self')).toBe(true);
  for (const entry of doc.feed.entry ?? []) {
    for (const field of ['id', 'title', 'updated', 'author']) expect(entry[field], `entry ${field}`).toBeTruthy();
  }
}

async function historyOf(query: string): Promise<HistoryRecordJson[]> {
  return (await get(`/api/history${query}`)).json();
}

describe('GET /feeds/archives.atom', () => {
  it('lists the 50 newest finished archives, each linking to its page and enclosing the video download', async () => {
    const parsed = await feed('/feeds/archives.atom');
    const history = await historyOf('?limit=50');
    expect(parsed.meta.title).toBe('Kura: archives');
    expect(parsed.meta.xmlurl).toBe(`${TEST_PUBLIC_URL}/feeds/archives.atom`);
    expect(parsed.items).toHaveLength(50);
    expect(parsed.items.map((i) => i.link)).toEqual(history.map((r) => `${TEST_PUBLIC_URL}/archive/${r.id}`));
    for (const [index, item] of parsed.items.entries()) {
      const record = history[index] as HistoryRecordJson;
      expect(item.guid).toBe(`${TEST_PUBLIC_URL}/archive/${record.id}`);
      expect(item.title).toBe(record.title);
      expect(item.author).toBe(record.channelName);
      expect(item.enclosures).toEqual([{ url: record.downloadUrl, length: String(record.fileSizeBytes), type: 'video/mp4' }]);
      expect(item.summary).toContain(record.channelName);
      expect(item.image.url).toBe(record.thumbnail);
    }
    // the newest archive is the last record of the fixture that is finished
    expect(parsed.items[0]?.link).toBe(`${TEST_PUBLIC_URL}/archive/${records.at(-1)?.id}`);
  });

  it("lists one channel's archives with channelId, and an unknown channel as an empty feed", async () => {
    const parsed = await feed(`/feeds/archives.atom?channelId=${CHANNEL}`);
    const expected = records.filter((r) => r.channelId === CHANNEL && r.finished).map((r) => `${TEST_PUBLIC_URL}/archive/${r.id}`);
    expect(expected.length).toBeGreaterThan(0);
    expect(parsed.items.map((i) => i.link)).toEqual(expected.reverse());
    expect(parsed.meta.xmlurl).toBe(`${TEST_PUBLIC_URL}/feeds/archives.atom?channelId=${CHANNEL}`);
    expect(parsed.meta.link).toBe(`${TEST_PUBLIC_URL}/channel/${CHANNEL}`);

    const unknown = await feed('/feeds/archives.atom?channelId=UCnobodyhere');
    expect(unknown.items).toEqual([]);
    expect(unknown.meta.title).toBe('UCnobodyhere on Kura: archives');
  });

  it('refuses a channelId that is not one with problem JSON', async () => {
    for (const query of ['channelId=', 'channelId=a%00b', `channelId=${'x'.repeat(201)}`]) {
      const response = await get(`/feeds/archives.atom?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['content-type'], query).toMatch(/^application\/problem\+json/);
    }
  });

  it('escapes titles and names, so any text makes a well-formed feed', async () => {
    const hostile = buildRecord({ id: 'xml-1', title: 'Karaoke <b>&</b> "more" ]]>\u0001 end', channelName: 'A & B <c>', channelId: 'UCxml' }, 9000);
    await kura.load([hostile]);
    const parsed = await feed('/feeds/archives.atom?channelId=UCxml');
    // feed readers strip markup from a title: the text as written is in the raw element, a control character dropped
    const raw = parsed.items.map((i) => [(i as unknown as Record<string, { '#': string }>)['atom:title']?.['#'], i.author]);
    expect(raw).toEqual([['Karaoke <b>&</b> "more" ]]> end', 'A & B <c>']]);
    expect((await get('/feeds/archives.atom?channelId=UCxml')).body).not.toContain('\u0001');
  });
});

describe('GET /feeds/queue.atom', () => {
  it('lists upcoming streams soonest first, without enclosures, of one channel with channelId', async () => {
    const parsed = await feed('/feeds/queue.atom');
    const upcoming = records.filter((r) => !r.finished);
    expect(parsed.meta.title).toBe('Kura: upcoming and live streams');
    expect(parsed.items.map((i) => i.link)).toEqual(upcoming.map((r) => `${TEST_PUBLIC_URL}/archive/${r.id}`));
    expect(parsed.items.map((i) => i.guid)).toEqual(upcoming.map((r) => `${TEST_PUBLIC_URL}/archive/${r.id}#queued`));
    expect(parsed.items.every((i) => i.enclosures.length === 0)).toBe(true);
    expect(parsed.items[0]?.summary).toContain(`scheduled for ${upcoming[0]?.scheduledStart.slice(0, 16).replace('T', ' ')} UTC`);

    const one = upcoming[1] as HistoryRecordJson;
    const ofChannel = await feed(`/feeds/queue.atom?channelId=${one.channelId}`);
    expect(ofChannel.items.map((i) => i.link)).toEqual(upcoming.filter((r) => r.channelId === one.channelId).map((r) => `${TEST_PUBLIC_URL}/archive/${r.id}`));
  });
});

describe('conditional GET', () => {
  it('answers 304 without a body to If-None-Match and If-Modified-Since, on both feeds', async () => {
    for (const url of ['/feeds/archives.atom', '/feeds/queue.atom', `/feeds/archives.atom?channelId=${CHANNEL}`]) {
      const first = await get(url);
      const etag = first.headers.etag as string;
      const lastModified = first.headers['last-modified'] as string;
      expect(etag).toMatch(/^"[\w-]+"$/);
      expect(new Date(lastModified).toUTCString()).toBe(lastModified);

      const conditions: Array<Record<string, string>> = [
        { 'if-none-match': etag },
        { 'if-none-match': `"other", W/${etag}` },
        { 'if-modified-since': lastModified },
      ];
      for (const headers of conditions) {
        const again = await get(url, headers);
        expect(again.statusCode, JSON.stringify(headers)).toBe(304);
        expect(again.body).toBe('');
        expect(again.headers.etag).toBe(etag);
      }
      const head = await kura.app.inject({ method: 'HEAD', url });
      expect([head.statusCode, head.headers.etag, head.body]).toEqual([200, etag, '']);
      // a tag that is not the feed's wins over a date that is current
      expect((await get(url, { 'if-none-match': '"stale"', 'if-modified-since': lastModified })).statusCode).toBe(200);
      expect((await get(url, { 'if-modified-since': new Date(Date.parse(lastModified) - 1000).toUTCString() })).statusCode).toBe(200);
    }
  });

  it('changes the ETag and Last-Modified when a new archive is finished, and serves it to readers holding the old ones', async () => {
    const url = '/feeds/archives.atom?channelId=UCchanging';
    await kura.load([buildRecord({ id: 'changing-1', channelId: 'UCchanging' }, 8000)]);
    const before = await get(url);
    const headers = { 'if-none-match': before.headers.etag as string };
    expect((await get(url, headers)).statusCode).toBe(304);

    await kura.load([buildRecord({ id: 'changing-2', channelId: 'UCchanging' }, 8001)]);
    const after = await get(url, headers);
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(Date.parse(after.headers['last-modified'] as string)).toBeGreaterThan(Date.parse(before.headers['last-modified'] as string));
    expect((await get(url, { 'if-modified-since': before.headers['last-modified'] as string })).statusCode).toBe(200);
    const parsed = await parseFeed(after.body, `${TEST_PUBLIC_URL}${url}`);
    expect(parsed.items.map((i) => i.guid)).toEqual([`${TEST_PUBLIC_URL}/archive/changing-2`, `${TEST_PUBLIC_URL}/archive/changing-1`]);
  });
});

describe('discovery', () => {
  const ALTERNATE = '<link rel="alternate" type="application/atom+xml" title="Kura: archives" href="/feeds/archives.atom"';

  it('links the archives feed from the head of every page, and a channel page to its own feed', async () => {
    for (const url of ['/', '/history', `/archive/${records.at(-1)?.id}`, `/channel/${CHANNEL}`]) {
      expect((await get(url)).body, url).toContain(ALTERNATE);
    }
    const channelPage = (await get(`/channel/${CHANNEL}`)).body;
    expect(channelPage).toContain(`type="application/atom+xml" title="Channel 3: archives" href="/feeds/archives.atom?channelId=${CHANNEL}">`);
  });

  it('lists both feeds in the OpenAPI document as archivesFeed and queueFeed', async () => {
    const spec = (await get('/api/openapi.json')).json();
    expect(spec.paths['/feeds/archives.atom'].get.operationId).toBe('archivesFeed');
    expect(spec.paths['/feeds/queue.atom'].get.operationId).toBe('queueFeed');
  });
});
