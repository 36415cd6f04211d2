import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addLocalUser } from '../../src/core/accounts/add-local-user.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { importLivestreams } from '../../src/core/records/import-livestreams.js';
import { createAccountStores } from '../../src/wiring/accounts.js';
import { finishedRecord } from '../support/archives.js';
import { SCREENSHOT_DIR, screenshot, seriousViolations, VIEWPORTS } from '../support/browser.js';
import { prepareBrowserKura, type BrowserKura } from '../support/browser-kura.js';
import { spawnKura, type KuraProcess } from '../support/cli.js';
import { buildRecords } from '../support/factories.js';
import { makeLongArchive, storeAsVideo } from '../support/long-archive.js';
import { foreignTexts, readableTexts, type UiLanguage } from '../support/visible-text.js';

// Every page of the web UI in each language it speaks (docs/i18n.md), in Debian's Chromium against
// a real `kura serve` (the api alone: nothing watches, records or delivers, so what was seeded stays
// as it is). Each page is walked as nobody, as a user and as an admin, in a browser asking for
// Japanese and in one asking for English: it must be in that language (<html lang>, and no word of
// the other language but data and the names that stay in Latin letters), without serious
// accessibility violations; a screenshot of each is kept. A failure lists each text by page and role.

// what the pages show that is data, not the UI's words (taken out before looking for foreign words)
const VIDEO_ID = 'langVideo001';
const UPCOMING_ID = 'langUpcoming1';
const LIVE_ID = 'langLiveNow01';
const CHANNEL = { channelId: 'UClangChannel0000000001', channelName: 'Lang Channel 言語' };
const VIDEO_TITLE = '【歌枠】Evening songs 夜の歌 #7';
const UPCOMING_TITLE = 'Next week 来週の配信';
const LIVE_TITLE = 'Live now 配信中のテスト';
const MOMENTS = [
  { at: 5, text: 'Opening' },
  { at: 20, text: '残響散歌' },
];
const CHAT = [
  { id: 'chat-1', at: 2, author: 'Viewer One', body: 'hello from the chat' },
  { id: 'chat-2', at: 4, author: '視聴者', body: 'こんばんは' },
];
/** The reason of a gap is the capture's own text (the server's, as recorded): data here. */
const GAP_REASON = 'the playlist skipped past these segments';
const FOLLOW = { url: 'http://127.0.0.1:9/stage/index.m3u8', channel: 'Quiet Stage 静' };
const WEBHOOK_URL = 'http://127.0.0.1:9/kura-hook';
const PERSONAL_WEBHOOK_URL = 'http://127.0.0.1:9/bob-hook';
const USERS = { admin: { name: 'alice', password: 'alice-password-1' }, user: { name: 'bob', password: 'bob-password-12' } } as const;
const TOKEN_NAMES = { alice: 'nightly backup', bob: 'feed reader' };
const HISTORY = buildRecords(6, { offset: 1 }).map((record) => ({ ...record, thumbnail: '' }));
const SEEDED = [
  VIDEO_ID,
  UPCOMING_ID,
  LIVE_ID,
  CHANNEL.channelId,
  CHANNEL.channelName,
  VIDEO_TITLE,
  UPCOMING_TITLE,
  LIVE_TITLE,
  ...MOMENTS.map((moment) => moment.text),
  ...CHAT.flatMap((message) => [message.author, message.body]),
  GAP_REASON,
  FOLLOW.url,
  FOLLOW.channel,
  WEBHOOK_URL,
  PERSONAL_WEBHOOK_URL,
  // a user's name, as a submitter, and its initial on the avatar
  ...Object.values(USERS).flatMap((user) => [user.name, `local/${user.name}`, user.name.charAt(0).toUpperCase()]),
  ...Object.values(TOKEN_NAMES),
  ...HISTORY.flatMap((record) => [record.id, record.title, record.channelName, record.channelId, ...record.submitters]),
];

type Role = 'nobody' | 'user' | 'admin';
const ROLES: Role[] = ['nobody', 'user', 'admin'];
const LOCALES: Record<UiLanguage, string> = { ja: 'ja-JP', en: 'en-US' };

let served: BrowserKura;
let api: string;
let browser: Browser;
let followId: string;
/** A private instance (KURA_PUBLIC_READ=false), for the login-only view a stranger gets. */
let closed: BrowserKura;
let closedKura: KuraProcess | undefined;

/** The pages `role` sees, by the name of their screenshots. */
function pagesOf(role: Role): Array<[name: string, url: string]> {
  return [
    ['home', '/'],
    ['queue', '/queue'],
    ['history', '/history'],
    ['archive', `/archive/${VIDEO_ID}`],
    ['archive-upcoming', `/archive/${UPCOMING_ID}`],
    ['archive-live', `/archive/${LIVE_ID}`],
    ['channels', '/channels'],
    ['channel', `/channel/${CHANNEL.channelId}`],
    ['follows', '/follows'],
    ['follow', `/follows/${followId}`],
    ['stats', '/stats'],
    ['tokens', '/tokens'],
    ['webhooks', '/webhooks'],
    ...(role === 'nobody' ? [['login', '/login'] as [string, string]] : []),
    ['not-found', '/nope'],
    ['archive-unknown', '/archive/unknown0001'],
  ];
}

/** Seeds what is data of the pages, straight into the database before the server starts. */
async function seed(): Promise<void> {
  const { db, cwd } = served;
  const accounts = createAccountStores(db.pool);
  await addLocalUser(accounts, { name: USERS.admin.name, password: USERS.admin.password, role: 'admin' });
  await addLocalUser(accounts, { name: USERS.user.name, password: USERS.user.password, role: 'user' });
  await importLivestreams(db, HISTORY);
  // a finished archive with its video, recorded here with a gap, its chat and two moments
  const video = await storeAsVideo(createFsStore(path.join(cwd, 'data', 'archive')), VIDEO_ID, await makeLongArchive(1));
  const started = new Date(Date.now() - 3 * 86_400_000);
  const ended = new Date(started.getTime() + 60_000);
  const common = { ...CHANNEL, platform: 'youtube' as const, submitters: ['local/alice'] };
  await db.livestreams.upsertMany([
    {
      ...finishedRecord(VIDEO_ID, video),
      ...common,
      sourceUrl: `https://www.youtube.com/watch?v=${VIDEO_ID}`,
      title: VIDEO_TITLE,
      scheduledStart: started,
      startedAt: started,
      endedAt: ended,
    },
    {
      ...finishedRecord(UPCOMING_ID),
      ...common,
      sourceUrl: `https://www.youtube.com/watch?v=${UPCOMING_ID}`,
      status: 'upcoming',
      title: UPCOMING_TITLE,
      scheduledStart: new Date(Date.now() + 7 * 86_400_000),
    },
    {
      ...finishedRecord(LIVE_ID),
      ...common,
      sourceUrl: `https://www.youtube.com/watch?v=${LIVE_ID}`,
      status: 'live',
      title: LIVE_TITLE,
      scheduledStart: new Date(Date.now() - 600_000),
      startedAt: new Date(Date.now() - 600_000),
    },
  ]);
  await db.pool.query(`insert into captures (livestream_id, state, started_at, ended_at) values ($1, 'finalized', $2, $3)`, [VIDEO_ID, started, ended]);
  await db.pool.query(`insert into capture_gaps (livestream_id, first_sequence, last_sequence, seconds, reason) values ($1, 10, 12, 6, $2)`, [
    VIDEO_ID,
    GAP_REASON,
  ]);
  await db.pool.query(`insert into chat_captures (livestream_id, state, archive_start) values ($1, 'ended', $2)`, [VIDEO_ID, started]);
  for (const message of CHAT) {
    await db.pool.query(`insert into chat_messages (livestream_id, id, sent_at, author_name, author_channel_id, body) values ($1, $2, $3, $4, $5, $6)`, [
      VIDEO_ID,
      message.id,
      new Date(started.getTime() + message.at * 1000),
      message.author,
      `UCviewer${message.id}`,
      message.body,
    ]);
  }
  for (const [i, moment] of MOMENTS.entries()) {
    await db.pool.query(`insert into moments (id, livestream_id, at_seconds, text, author) values ($1, $2, $3, $4, 'local/alice')`, [
      `langMoment${i}`,
      VIDEO_ID,
      moment.at,
      moment.text,
    ]);
  }
}

/** Logs `name` in through the API; answers a function that sends a JSON request as them (a page of the instance's own). */
async function asUser(name: string, password: string): Promise<(method: string, url: string, body?: unknown) => Promise<{ status: number; json: unknown }>> {
  const login = await fetch(`${api}/auth/local`, {
    method: 'POST',
    headers: { origin: api, 'content-type': 'application/json' },
    body: JSON.stringify({ username: name, password }),
  });
  expect(login.status).toBe(200);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return async (method, url, body) => {
    const response = await fetch(`${api}${url}`, {
      method,
      headers: { origin: api, cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json().catch(() => null) };
  };
}

/** What an admin and a user add through the API once the server listens: a follow, a webhook, tokens. */
async function addThroughTheApi(): Promise<void> {
  const alice = await asUser(USERS.admin.name, USERS.admin.password);
  const bob = await asUser(USERS.user.name, USERS.user.password);
  const follow = await alice('POST', '/api/follows', FOLLOW);
  expect(follow.status, JSON.stringify(follow.json)).toBe(201);
  followId = (follow.json as { id: string }).id;
  const webhook = await alice('POST', '/api/webhooks', { url: WEBHOOK_URL });
  expect(webhook.status, JSON.stringify(webhook.json)).toBe(201);
  for (const [send, name] of [
    [alice, TOKEN_NAMES.alice],
    [bob, TOKEN_NAMES.bob],
  ] as const) {
    const token = await send('POST', '/api/tokens', { name });
    expect(token.status, JSON.stringify(token.json)).toBe(201);
  }
  const personal = await bob('POST', '/api/user/webhooks', { url: PERSONAL_WEBHOOK_URL });
  expect(personal.status, JSON.stringify(personal.json)).toBe(201);
}

beforeAll(async () => {
  [served, closed] = await Promise.all([
    prepareBrowserKura('kura-web-languages-', () => ({ KURA_ROLE: 'api' })),
    prepareBrowserKura('kura-web-languages-private-', () => ({ KURA_ROLE: 'api', KURA_PUBLIC_READ: 'false' })),
  ]);
  api = served.api;
  await seed();
  closedKura = spawnKura(['serve'], closed.env(), closed.cwd);
  [{ browser }] = await Promise.all([served.start(), closedKura.waitForLog((l) => l.msg === 'kura api listening')]);
  await addThroughTheApi();
}, 120_000);

afterAll(async () => {
  await served?.stop();
  closedKura?.child.kill('SIGKILL');
  await closedKura?.exited;
  await closed?.db.drop();
});

/** A browser context asking for `language`, logged in as `role` (but nobody). */
async function contextOf(language: UiLanguage, role: Role, baseURL = api): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop, baseURL, locale: LOCALES[language] });
  if (role !== 'nobody') {
    const { name, password } = USERS[role];
    const response = await context.request.post('/auth/local', { data: { username: name, password }, headers: { origin: baseURL } });
    expect(response.status()).toBe(200);
  }
  return context;
}

/** One text in the wrong language, where it was seen. */
interface Sighting {
  url: string;
  role: string;
  text: string;
  where: string;
}

/** What the walk of one page found wrong besides foreign texts (its <html lang>, axe), as lines; and the foreign texts. */
interface Findings {
  problems: string[];
  foreign: Sighting[];
}

/** Loads `url` in `page`, waits for it to settle, and checks it is in `language` throughout. */
async function visit(page: Page, language: UiLanguage, role: Role, name: string, url: string, found: Findings, label = url): Promise<void> {
  await page.goto(url);
  // a recording's page reads its record again every few seconds, its player its playlist: idle is not waited for long
  await page.waitForLoadState('networkidle', { timeout: 3000 }).catch(() => undefined);
  await expect.poll(() => page.locator('.skeleton').count(), { timeout: 10_000 }).toBe(0);
  const lang = await page.evaluate(() => document.documentElement.lang);
  if (lang !== language) found.problems.push(`${label} (${role}): <html lang="${lang}">, not "${language}"`);
  await screenshot(page, `lang-${language}-${name}-${role}`);
  found.problems.push(...(await seriousViolations(page)).map((violation) => `${label} (${role}): ${violation}`));
  const texts = await readableTexts(page);
  for (const text of foreignTexts(
    texts.map((t) => t.text),
    language,
    SEEDED,
  )) {
    for (const seen of texts.filter((t) => t.text === text)) found.foreign.push({ url: label, role, text, where: seen.where });
  }
}

/** The foreign texts as lines `page (roles): "text"`, each text of a page once with every role that saw it, in the order of the walk. */
function foreignLines(foreign: Sighting[]): string[] {
  const lines = new Map<string, Set<string>>();
  for (const { url, role, text, where } of foreign) {
    const key = JSON.stringify([url, text, where]);
    lines.set(key, (lines.get(key) ?? new Set()).add(role));
  }
  return [...lines].map(([key, roles]) => {
    const [url, text, where] = JSON.parse(key) as [string, string, string];
    return `${url} (${[...roles].join(', ')}): "${text}"${where === 'text' ? '' : ` [${where}]`}`;
  });
}

/** Fails with every problem and every foreign text, one a line (also written to test-artifacts/), if there is any. */
async function report(language: UiLanguage, found: Findings, name: string): Promise<void> {
  const lines = foreignLines(found.foreign);
  const languageName = language === 'ja' ? 'Japanese' : 'English';
  const all = [...found.problems, ...(lines.length === 0 ? [] : [`${lines.length} texts on ${languageName} pages are not ${languageName}:`, ...lines])];
  const file = path.join(path.dirname(SCREENSHOT_DIR), `${name}.txt`);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, all.length === 0 ? '' : `${all.join('\n')}\n`);
  if (all.length > 0) throw new Error(`${languageName} walk (also in ${path.relative(process.cwd(), file)}):\n${all.join('\n')}`);
}

describe('the web UI in each language', () => {
  for (const language of ['ja', 'en'] as const) {
    it(`shows every page in ${language === 'ja' ? 'Japanese' : 'English'} to nobody, a user and an admin, data aside`, async () => {
      const found: Findings = { problems: [], foreign: [] };
      // one role after another, one page navigated from page to page (a new page costs more): three
      // Chromium pages at once beside the suite's real-time captures starved them of segments
      for (const role of ROLES) {
        const context = await contextOf(language, role);
        const page = await context.newPage();
        // the follow's page by a name that stays the same from run to run (its id does not)
        for (const [name, url] of pagesOf(role)) await visit(page, language, role, name, url, found, url.replace(followId, '{id}'));
        await context.close();
      }
      // the order of the walk's pages, whichever role saw a text
      const order = new Map(pagesOf('nobody').map(([, url], i) => [url.replace(followId, '{id}'), i]));
      found.foreign.sort((a, b) => (order.get(a.url) ?? 0) - (order.get(b.url) ?? 0));
      await report(language, found, `lang-${language}-walk`);
      // some 100 page loads with a screenshot and an axe pass each: a minute on a quiet machine, five on a loaded one
    }, 300_000);
  }

  it('shows a stranger to a private instance only its first-run page, then its login page, in the language asked for', async () => {
    const found: Record<UiLanguage, Findings> = { ja: { problems: [], foreign: [] }, en: { problems: [], foreign: [] } };
    const strangers = await Promise.all(
      (['ja', 'en'] as const).map(async (language) => [language, await (await contextOf(language, 'nobody', closed.api)).newPage()] as const),
    );
    // no admin yet: the first run's setup, then, once there is one, the login page
    for (const [step, label] of [
      ['first-run', 'private /history, first run'],
      ['login', 'private /history'],
    ] as const) {
      if (step === 'login') await addLocalUser(createAccountStores(closed.db.pool), { name: USERS.admin.name, password: USERS.admin.password, role: 'admin' });
      for (const [language, page] of strangers) {
        await visit(page, language, 'nobody', `private-${step}`, '/history', found[language], label);
        expect(await page.locator('input[type=password]').count()).toBeGreaterThan(0);
        expect(await page.locator('nav').count()).toBe(0);
        // no nav, but the language switch: a stranger picks the language before logging in
        expect(await page.locator('.language-only select').inputValue()).toBe(language);
      }
    }
    await Promise.all(strangers.map(([, page]) => page.context().close()));
    await report('en', found.en, 'lang-en-private');
    await report('ja', found.ja, 'lang-ja-private');
  });

  it('switches the language from the nav and keeps it for the next page loads', async () => {
    const context = await contextOf('en', 'nobody');
    const page = await context.newPage();
    const lang = () => page.evaluate(() => document.documentElement.lang).catch(() => 'loading');
    const picked = async () => (await context.cookies()).find((cookie) => cookie.name === 'kura-lang')?.value;
    await page.goto('/history');
    await page.getByRole('link', { name: 'History', exact: true }).waitFor();
    expect(await lang()).toBe('en');
    // the switch names each language in itself
    const languages = page.locator('nav select');
    expect(await languages.locator('option').allInnerTexts()).toEqual(['English', '日本語']);

    await languages.selectOption('ja');
    await expect.poll(lang).toBe('ja');
    await page.getByRole('link', { name: '履歴', exact: true }).waitFor();
    expect(await picked()).toBe('ja');
    expect(await page.locator('nav select').inputValue()).toBe('ja');
    // a new load, of another page: still Japanese, though the browser asks for English
    await page.goto('/queue');
    await page.getByRole('link', { name: '録画予定', exact: true }).waitFor();
    expect(await lang()).toBe('ja');
    const other = await context.newPage();
    await other.goto('/stats');
    await other.getByRole('link', { name: '統計', exact: true }).waitFor();
    expect(await other.evaluate(() => document.documentElement.lang)).toBe('ja');
    await other.close();

    await page.locator('nav select').selectOption('en');
    await expect.poll(lang).toBe('en');
    await page.getByRole('link', { name: 'Queue', exact: true }).waitFor();
    expect(await picked()).toBe('en');
    await page.goto('/history');
    expect(await lang()).toBe('en');
    await context.close();
  });

  it('writes the request’s language into the HTML the server sends: <html lang>, the title, an archive’s link preview', async () => {
    const htmlOf = async (url: string, headers: Record<string, string>, status = 200) => {
      const response = await fetch(`${api}${url}`, { headers: { accept: 'text/html', ...headers } });
      expect(response.status, url).toBe(status);
      return response.text();
    };
    const langOf = (html: string) => /<html[^>]*\slang="([^"]*)"/.exec(html)?.[1];
    const metaOf = (html: string, property: string) => new RegExp(`<meta property="${property}" content="([^"]*)"`).exec(html)?.[1];
    const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
    const JAPANESE = { 'accept-language': 'ja-JP,ja;q=0.9' };
    const ENGLISH = { 'accept-language': 'en-US,en;q=0.9' };

    const japanese = await htmlOf('/history', JAPANESE);
    expect(langOf(japanese)).toBe('ja');
    expect(foreignTexts([titleOf(japanese) ?? ''], 'ja', SEEDED)).toEqual([]);
    expect(langOf(await htmlOf('/history', ENGLISH))).toBe('en');
    // the person's pick beats what the browser asks for
    expect(langOf(await htmlOf('/history', { 'accept-language': 'en-US,en;q=0.9', cookie: 'kura-lang=ja' }))).toBe('ja');
    expect(langOf(await htmlOf('/history', { 'accept-language': 'ja-JP,ja;q=0.9', cookie: 'kura-lang=en' }))).toBe('en');
    // the not-found page the server answers itself
    expect(langOf(await htmlOf('/archive/unknown0001', JAPANESE, 404))).toBe('ja');
    expect(langOf(await htmlOf('/archive/unknown0001', ENGLISH, 404))).toBe('en');

    // an archive's link preview: its description in Japanese (the channel's name is data, and Japanese itself)
    const archiveJa = await htmlOf(`/archive/${VIDEO_ID}`, JAPANESE);
    expect(langOf(archiveJa)).toBe('ja');
    const descriptionJa = metaOf(archiveJa, 'og:description') ?? '';
    expect(foreignTexts([descriptionJa], 'en', SEEDED), descriptionJa).toEqual([descriptionJa]);
    expect(foreignTexts([descriptionJa], 'ja', SEEDED)).toEqual([]);
    const descriptionEn = metaOf(await htmlOf(`/archive/${VIDEO_ID}`, ENGLISH), 'og:description') ?? '';
    expect(foreignTexts([descriptionEn], 'en', SEEDED)).toEqual([]);
  });
});
