import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpool } from '../../src/adapters/capture/spool.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createChatRepo } from '../../src/adapters/db/chat-repo.js';
import { createChatFiles } from '../../src/adapters/storage/chat-files.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import type { CaptureRepo } from '../../src/core/capture/ports.js';
import type { ChatMessage } from '../../src/core/chat/chat.js';
import type { ChatLog } from '../../src/core/chat/ports.js';
import { storeChat } from '../../src/core/chat/store-chat.js';
import { compactLeftovers } from '../../src/jobs/loops/lifecycle-sweep.js';
import { finishedRecord, putObject } from '../support/archives.js';
import { startTestApp, type TestApp } from '../support/app.js';

// What a finalized capture leaves in PostgreSQL (decision 0112), on a real database, the real app
// and an fs store: one summary of its parts instead of a row a segment, its chat read from the
// file stored beside the archive instead of a row a message, and every endpoint answering as before.
let kura: TestApp;
let store: ArchiveStore;
let captures: CaptureRepo;
let chats: ChatLog;
let storeDir: string;
let spoolDir: string;

beforeAll(async () => {
  storeDir = await mkdtemp(path.join(os.tmpdir(), 'kura-summaries-store-'));
  spoolDir = await mkdtemp(path.join(os.tmpdir(), 'kura-summaries-spool-'));
  store = createFsStore(storeDir);
  kura = await startTestApp({}, {}, { store });
  captures = createCaptureRepo(kura.db.pool);
  chats = createChatRepo(kura.db.pool);
});
afterAll(async () => {
  await kura.close();
  await rm(storeDir, { recursive: true, force: true });
  await rm(spoolDir, { recursive: true, force: true });
});

const T0 = Date.parse('2026-11-27T12:00:00Z');

/** The chat's n-th message, sent `seconds` after T0; every 7th paid, every 5th with a channel emoji. */
const message = (n: number, seconds: number): ChatMessage => ({
  id: `m${String(n).padStart(4, '0')}`,
  sentAt: new Date(T0 + seconds * 1000),
  author: { name: `Viewer ${n % 9}`, channelId: `UCviewer${n % 9}`, badges: n % 4 === 0 ? ['member'] : [] },
  text: n % 5 === 0 ? `message ${n} :_wave:` : `message ${n}`,
  emojis: n % 5 === 0 ? [{ shortcut: ':_wave:', url: 'https://yt3.example/wave.png' }] : [],
  paid: n % 7 === 0 ? { amount: 500, currency: 'JPY', text: '¥500' } : null,
});

/**
 * A YouTube stream recorded and finalized as finalize leaves it: two parts of 2 s segments (the
 * first fetched at T0 + 6 s when it was 2 s old: the archive starts at T0 + 4 s), a gap, a chat of
 * `messages` messages from 12 s before the archive's start to three minutes in, stored beside the archive,
 * the record finished with its video in the store (or, not `archived`, failed before any of it was
 * stored), the capture finalized and not compacted yet.
 */
async function finalizedWithChat(id: string, messages = 400, archived = true): Promise<void> {
  const youtube = { platform: 'youtube' as const, sourceUrl: `https://www.youtube.com/watch?v=${id}`, channelId: 'UCfixture0000000000000001' };
  await kura.db.livestreams.upsertMany([{ ...finishedRecord(id), ...youtube, status: 'live', scheduledStart: new Date(T0), startedAt: new Date(T0) }]);
  await captures.claim(id, 'video-worker', 30);
  // as recordSegment stores them (one statement here: the sweep's test makes many)
  await kura.db.pool.query(
    `insert into capture_segments (livestream_id, sequence, part, end_offset, duration_seconds, fetched_at)
     select $1, s, case when s < 60 then 1 else 2 end, ((case when s < 60 then s else s - 60 end) + 1) * 1000, 2,
       $2::timestamptz + make_interval(secs => 6 + s * 2)
     from generate_series(0, 99) s where s not between 40 and 42`,
    [id, new Date(T0)],
  );
  await captures.recordGap(id, { firstSequence: 40, lastSequence: 42, seconds: 6, reason: 'gone from the playlist' }, []);
  await chats.claim(id, 'chat-worker', 30);
  const sent = Array.from({ length: messages }, (_, n) => message(n, -8 + (n * 190) / messages));
  for (let i = 0; i < sent.length; i += 100) await chats.append(id, 'chat-worker', sent.slice(i, i + 100));
  await chats.finish(id, 'ended');
  await captures.end(id, 'ended');
  if (!archived) {
    // finalize gave up before the chat's turn came: no chat file
    await kura.db.livestreams.transition(id, { type: 'gave_up', reason: 'The remux failed.' });
    return captures.markFinalized(id);
  }
  const record = await kura.db.livestreams.findById(id);
  await storeChat({ chats, store, spool: createSpool(spoolDir) }, record!, 0);
  const video = await putObject(store, objectKeys.video(id), Buffer.from('not a real video'));
  await putObject(store, objectKeys.log(id), Buffer.from('[kura] the encoder log\n'));
  await kura.db.livestreams.transition(id, {
    type: 'archived',
    endedAt: new Date(T0 + 200_000),
    archive: {
      fileSizeBytes: video.bytes,
      lengthSeconds: 194,
      videoKey: objectKeys.video(id),
      logKey: objectKeys.log(id),
      thumbnailKey: null,
      sha256: video.sha256,
    },
  });
  await captures.markFinalized(id);
}

/** Rows of the record in the tables that grew with every segment and message. */
async function rowsOf(id: string): Promise<{ segments: number; messages: number }> {
  const { rows } = await kura.db.pool.query<{ segments: number; messages: number }>(
    `select (select count(*)::int from capture_segments where livestream_id = $1) as segments,
            (select count(*)::int from chat_messages where livestream_id = $1) as messages`,
    [id],
  );
  return rows[0]!;
}

/** What a viewer and a client read of a finished archive: its page, downloads, chat windows and activity, live playlist, chat file. */
async function answersFor(id: string): Promise<Array<{ url: string; status: number; body: unknown }>> {
  const urls = [
    `/api/video/${id}`,
    `/api/video/${id}/downloads`,
    `/api/video/${id}/chat`,
    `/api/video/${id}/chat?from=0&to=60`,
    `/api/video/${id}/chat?from=-10&to=5`,
    `/api/video/${id}/chat?from=30.5&to=90&limit=7`,
    `/api/video/${id}/chat?from=170&to=400`,
    `/api/video/${id}/chat?from=500&to=600`,
    `/api/video/${id}/chat/activity`,
    `/api/video/${id}/live.m3u8`,
    `/api/download/${id}/chat`,
  ];
  const answers = [];
  for (const url of urls) {
    const response = await kura.app.inject({ method: 'GET', url });
    const body = /^application\/(problem\+)?json/.test(String(response.headers['content-type'])) ? response.json() : response.rawPayload.toString('base64');
    answers.push({ url, status: response.statusCode, body });
  }
  return answers;
}

describe('a finalized capture', () => {
  it('keeps no row a segment nor a message, and every endpoint answers as before', async () => {
    await finalizedWithChat('summary0001');
    const before = await answersFor('summary0001');
    expect(await rowsOf('summary0001')).toEqual({ segments: 97, messages: 400 });
    // the windows hold what they should, so "as before" compares something
    const window = before.find((a) => a.url.endsWith('from=0&to=60'))?.body as { messages: Array<{ offset: number }>; archiveStart: string };
    expect(window.archiveStart).toBe(new Date(T0 + 4000).toISOString());
    expect(window.messages.length).toBeGreaterThan(100);
    expect(window.messages.every((m) => m.offset >= 0 && m.offset < 60)).toBe(true);
    const details = before[0]?.body as { parts?: unknown[] };
    expect(JSON.stringify(details)).toContain('gone from the playlist');

    expect(await captures.compact('summary0001')).toBe(true);

    expect(await rowsOf('summary0001')).toEqual({ segments: 0, messages: 0 });
    expect(await answersFor('summary0001')).toEqual(before);
    expect(await captures.parts('summary0001')).toEqual([
      { part: 1, bytes: 60_000, segments: 57, seconds: 114 },
      { part: 2, bytes: 40_000, segments: 40, seconds: 80 },
    ]);
    // the lost stretch keeps its place on the timeline: after segments 0–39, 2 s each
    expect(await captures.gaps('summary0001')).toEqual([{ firstSequence: 40, lastSequence: 42, seconds: 6, reason: 'gone from the playlist', atSeconds: 80 }]);
    expect(await captures.compact('summary0001')).toBe(false); // done once
  });

  it('that may go on keeps its segments until it is let go', async () => {
    await finalizedWithChat('summary0002', 50);
    await kura.db.pool.query(`update captures set state = 'kept', kept_until = now() + interval '1 hour' where livestream_id = 'summary0002'`);
    expect(await captures.compact('summary0002')).toBe(false);
    expect(await rowsOf('summary0002')).toEqual({ segments: 97, messages: 50 });

    expect(await captures.letGo('summary0002')).toBe(true);
    expect(await captures.compact('summary0002')).toBe(true);
    expect(await rowsOf('summary0002')).toEqual({ segments: 0, messages: 0 });
  });

  it('keeps the chat messages of a record that never finished: no file holds them', async () => {
    await finalizedWithChat('summary0003', 30, false);
    expect(await captures.compact('summary0003')).toBe(true);
    expect(await rowsOf('summary0003')).toEqual({ segments: 0, messages: 30 });
    const window = await kura.app.inject({ method: 'GET', url: '/api/video/summary0003/chat?from=-20&to=600' });
    expect(window.json().messages).toHaveLength(30);
  });

  it('finalized before summaries were kept is compacted by the sweep, a batch at a time', async () => {
    const ids = Array.from({ length: 23 }, (_, i) => `leftover${String(i).padStart(3, '0')}`);
    for (const id of ids) await finalizedWithChat(id, 5);
    const before = await answersFor('leftover007');
    const leftovers = `select count(*)::int as n from captures where state = 'finalized' and part_summary is null`;
    const waiting = (await kura.db.pool.query<{ n: number }>(leftovers)).rows[0]?.n;
    expect(waiting).toBeGreaterThanOrEqual(ids.length);
    const logged: Array<Record<string, unknown>> = [];
    await compactLeftovers(captures, { info: (fields: Record<string, unknown>) => logged.push(fields), warn: () => undefined });

    expect((await kura.db.pool.query<{ n: number }>(leftovers)).rows[0]?.n).toBe(0);
    for (const id of ids) expect(await rowsOf(id)).toEqual({ segments: 0, messages: 0 });
    expect(logged).toEqual([{ compacted: waiting }]);
    expect(await answersFor('leftover007')).toEqual(before);
  });
});

describe('a filed chat', () => {
  it('answers chat_not_found when the store lost its file, and a file stored anew is read anew', async () => {
    await finalizedWithChat('summary0004', 20);
    await captures.compact('summary0004');
    const read = (url: string) => kura.app.inject({ method: 'GET', url });
    expect((await read('/api/video/summary0004/chat?from=-20&to=600')).json().messages).toHaveLength(20);

    await store.delete(objectKeys.chat('summary0004'));
    // the api kept the file it read; the record's chat filed again (taken down, archived anew) is a new file
    await kura.db.pool.query(`update chat_captures set filed_at = now() + interval '1 second' where livestream_id = 'summary0004'`);
    const lost = await read('/api/video/summary0004/chat');
    expect(lost.statusCode).toBe(404);
    expect(lost.json()).toMatchObject({ code: 'chat_not_found' });
  });

  it('is read once by viewers asking at once, and kept within its budget of lines', async () => {
    await finalizedWithChat('summary0005', 40);
    await finalizedWithChat('summary0006', 40);
    await captures.compact('summary0005');
    await captures.compact('summary0006');
    let reads = 0;
    const counted: Pick<ArchiveStore, 'read' | 'stat'> = {
      stat: (key) => store.stat(key),
      read: (key, range) => ((reads += 1), store.read(key, range)),
    };
    const files = createChatFiles(counted, 60);
    const filedAt = async (id: string) => (await chats.state(id))!.filedAt!;
    const [a, b] = await Promise.all([files.lines('summary0005', await filedAt('summary0005')), files.lines('summary0005', await filedAt('summary0005'))]);
    expect(a).toHaveLength(40);
    expect(b).toBe(a);
    expect(reads).toBe(1);
    await files.lines('summary0005', await filedAt('summary0005'));
    expect(reads).toBe(1);
    // the second file does not fit beside the first within 60 lines: the first is dropped
    await files.lines('summary0006', await filedAt('summary0006'));
    await files.lines('summary0005', await filedAt('summary0005'));
    expect(reads).toBe(3);
  });
});
