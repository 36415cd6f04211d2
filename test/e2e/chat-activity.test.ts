import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatRepo } from '../../src/adapters/db/chat-repo.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import type { ChatMessage } from '../../src/core/chat/chat.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { finishedRecord } from '../support/archives.js';
import { freePort, launchBrowser, seriousViolations, VIEWPORTS } from '../support/browser.js';
import { type LongArchive, makeLongArchive, storeAsVideo } from '../support/long-archive.js';

// The chat-activity strip under the archive's player, in Debian's Chromium against the app in this
// process: a real three-minute archive (fs store) with a chat stored as a capture leaves it (its
// messages in PostgreSQL, the archive's 0 s known). A pointer seeks where it clicks; a keyboard
// seeks with it as a slider of the minutes. (The chat captured from YouTube end to end, and the
// strip beside it, are in youtube-chat.test.ts.)
const ID = 'chatStrip001';
/** Messages in each minute of the archive. */
const PER_MINUTE = [3, 10, 1];
let kura: TestApp;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  let archive: LongArchive;
  [kura, archive, browser] = await Promise.all([startTestApp({ publicUrl: origin }), makeLongArchive(3), launchBrowser()]);
  await kura.db.livestreams.upsertMany([finishedRecord(ID, await storeAsVideo(createFsStore(kura.archiveDir), ID, archive))]);
  const archiveStart = new Date('2026-01-01T00:00:00Z');
  const messages: ChatMessage[] = PER_MINUTE.flatMap((count, minute) =>
    Array.from({ length: count }, (_, n) => ({
      id: `m${minute}-${n}`,
      sentAt: new Date(archiveStart.getTime() + (minute * 60 + 5 + n) * 1000),
      author: { name: `Viewer ${n}`, channelId: `UCviewer${n}`, badges: [] },
      text: `message ${minute}-${n}`,
      emojis: [],
      paid: null,
    })),
  );
  const chats = createChatRepo(kura.db.pool);
  expect(await chats.claim(ID, 'worker-1', 30)).toBe(true);
  await chats.append(ID, 'worker-1', messages);
  await chats.finish(ID, 'ended');
  await kura.db.pool.query('update chat_captures set archive_start = $2 where livestream_id = $1', [ID, archiveStart]);
  await kura.app.listen({ port, host: '127.0.0.1' });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await kura?.close();
});

const currentTime = (player: Locator) => player.evaluate((v: HTMLVideoElement) => v.currentTime);

/** The archive page in `locale`, once its player knows the archive's length. */
async function openArchive(locale: string): Promise<{ page: Page; player: Locator }> {
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop, baseURL: origin, locale });
  const page = await context.newPage();
  await page.goto(`/archive/${ID}`);
  const player = page.getByTestId('player');
  await player.evaluate(
    (video: HTMLVideoElement) => new Promise((resolve) => (video.readyState >= 1 ? resolve(null) : video.addEventListener('loadedmetadata', resolve))),
  );
  return { page, player };
}

describe('the chat-activity strip under the archive’s player', () => {
  it('seeks by keys as a slider of the minutes, saying each minute’s messages', async () => {
    const { page, player } = await openArchive('en-US');
    const strip = page.getByRole('slider', { name: 'Chat activity, messages per minute' });
    await strip.waitFor();
    expect(await strip.getAttribute('data-testid')).toBe('chat-activity');
    expect(await strip.getAttribute('aria-valuemax')).toBe('2');
    expect(await strip.getAttribute('aria-valuetext')).toBe('0:00: 3 messages that minute');

    // in the Tab order between the player and the clip's buttons (Shift+Tab from the first of them)
    await page.getByRole('button', { name: 'Clip from here' }).focus();
    await page.keyboard.press('Shift+Tab');
    expect(await strip.evaluate((element) => element === document.activeElement)).toBe(true);

    // End: the last minute; Home: the first; an arrow: a minute on; Page Up ten on, as far as there is
    const steps: Array<[string, number, string]> = [
      ['End', 120, '2:00: 1 message that minute'],
      ['Home', 0, '0:00: 3 messages that minute'],
      ['ArrowRight', 60, '1:00: 10 messages that minute'],
      ['PageUp', 120, '2:00: 1 message that minute'],
      ['ArrowLeft', 60, '1:00: 10 messages that minute'],
      ['PageDown', 0, '0:00: 3 messages that minute'],
    ];
    for (const [key, seconds, said] of steps) {
      await page.keyboard.press(key);
      await expect.poll(() => currentTime(player), { message: key }).toBeCloseTo(seconds, 0);
      await expect.poll(() => strip.getAttribute('aria-valuetext'), { message: key }).toBe(said);
      expect(await strip.getAttribute('aria-valuenow')).toBe(String(seconds / 60));
    }
    // keys pressed faster than the player seeks step on from the minute the last one sought
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => currentTime(player)).toBeCloseTo(120, 0);
    expect(await strip.getAttribute('aria-valuenow')).toBe('2');

    // Enter and Space (a button's keys) are not a seek to the strip's left edge any more: the
    // arrow after them steps on from 2:00, where from 0:00 it would stay at 0:00
    await page.keyboard.press('Enter');
    await page.keyboard.press(' ');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => currentTime(player)).toBeCloseTo(60, 0);
    expect(await strip.getAttribute('aria-valuenow')).toBe('1');

    // a pointer still seeks where it clicks: the middle of the strip is the middle of the archive
    const box = await strip.boundingBox();
    await strip.click({ position: { x: (box?.width ?? 0) / 2, y: 10 } });
    await expect.poll(() => currentTime(player)).toBeGreaterThan(85);
    expect(await currentTime(player)).toBeLessThan(95);
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('says it in Japanese on a Japanese browser', async () => {
    const { page, player } = await openArchive('ja-JP');
    const strip = page.getByRole('slider', { name: 'チャットの盛り上がり（1分あたりのメッセージ数）' });
    await strip.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => currentTime(player)).toBeCloseTo(60, 0);
    await expect.poll(() => strip.getAttribute('aria-valuetext')).toBe('1:00：この1分間に10件');
    await page.context().close();
  }, 60_000);
});
