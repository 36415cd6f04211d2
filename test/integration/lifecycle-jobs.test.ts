import { createRecordedBytes } from '../../src/adapters/capture/recorded-bytes.js';
import { createFrameRepo } from '../../src/adapters/db/frame-repo.js';
import { createFrameRequests } from '../../src/core/playback/frame-requests.js';
import { liveDepsOf } from '../../src/core/playback/get-live-playlist.js';
import { chatArchive } from '../../src/core/chat/store-chat.js';
import { createChatRepo } from '../../src/adapters/db/chat-repo.js';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSpool } from '../../src/adapters/capture/spool.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createSweepRepo } from '../../src/adapters/db/sweep-repo.js';
import { createAdminActionRepo } from '../../src/adapters/db/admin-action-repo.js';
import { createFfmpegTools } from '../../src/adapters/media/ffmpeg-tools.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { finalizeArchive } from '../../src/core/capture/finalize-archive.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import type { CaptureRepo, MediaTools } from '../../src/core/capture/ports.js';
import { reviveLivestream } from '../../src/core/record-actions/revive-livestream.js';
import { createHandlers } from '../../src/jobs/handlers.js';
import type { WorkerDeps } from '../../src/jobs/job-work.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { startJobs } from '../../src/wiring/jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { workJobs } from '../support/jobs.js';
import { buildRecord } from '../support/factories.js';
import { waitForRecord } from '../support/records.js';
import { importLivestreams } from '../../src/core/records/import-livestreams.js';
import { testSignal } from '../support/ffmpeg-args.js';

// A job that fails for good moves its record to `failed` with why, and keeps what was captured:
// real pg-boss (its retries and metadata), real PostgreSQL, a real fs store and real ffmpeg.
let db: TestDatabase;
let dir: string;
let jobs: Jobs;
let stopWorking: ((timeoutMs?: number) => Promise<void>) | undefined;
let captures: CaptureRepo;
let store: ArchiveStore;

beforeEach(async () => {
  stopWorking = undefined;
  db = await createTestDatabase();
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-lifecycle-'));
  captures = createCaptureRepo(db.pool);
  store = createFsStore(path.join(dir, 'archive'));
});
afterEach(async () => {
  await stopWorking?.();
  await jobs?.stop(1000);
  await db.drop();
});

/** A live record whose ended capture holds one stored part of `media` bytes (as a capture leaves it). */
async function capturedRecord(media: Buffer): Promise<string> {
  const id = `life-${randomBytes(4).toString('hex')}`;
  await db.livestreams.upsertMany([{ ...liveInput(id) }]);
  await captures.claim(id, 'recorder', 30);
  await captures.recordSegment(id, { sequence: 0, part: 1, endOffset: media.length, durationSeconds: 2 }, ['[kura] segment 0 stored']);
  const file = path.join(dir, `${id}.ts`);
  await writeFile(file, media);
  const key = objectKeys.captureChunk(id, 1, 0, 'test');
  await store.put(key, file, { contentType: 'video/mp2t', contentDisposition: 'attachment' });
  await captures.recordChunk(id, 'recorder', { part: 1, startOffset: 0, endOffset: media.length, key });
  await captures.end(id, 'endlist');
  return id;
}

function liveInput(id: string) {
  return {
    id,
    platform: 'hls' as const,
    sourceUrl: `http://127.0.0.1:9/${id}/index.m3u8`,
    status: 'live' as const,
    failureReason: null,
    title: 'Karaoke',
    channelName: 'c',
    channelId: 'c',
    thumbnailUrl: null,
    scheduledStart: new Date(),
    startedAt: new Date(),
    endedAt: null,
    archive: null,
    submitters: ['cli/test'],
    requestedQuality: null,
  };
}

/** Two seconds of real MPEG-TS, as an HLS encoder writes it. */
function realMedia(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', [
      ...testSignal('testsrc=size=160x90:rate=15', 2, { silent: true }),
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-f',
      'mpegts',
      'pipe:1',
    ]);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`ffmpeg exited ${code}`))));
  });
}

/** MPEG-TS packets whose sync byte is right and whose 187 other bytes are random: noise. */
function noise(packets: number): Buffer {
  const bytes = randomBytes(188 * packets);
  for (let i = 0; i < packets; i++) bytes[i * 188] = 0x47;
  return bytes;
}

function workerDeps(media: MediaTools): WorkerDeps {
  const unused = () => Promise.reject(new Error('not used by finalize'));
  const spool = createSpool(path.join(dir, 'spool'));
  const chats = createChatRepo(db.pool);
  return {
    livestreams: db.livestreams,
    watchLooks: db.watchLooks,
    captures,
    scheduler: jobs,
    jobs,
    sweep: createSweepRepo(db.pool),
    adminActions: createAdminActionRepo(db.pool),
    source: { recognises: () => false, inspect: unused, check: unused, qualities: unused },
    recorder: { record: unused },
    fragmentRecorder: { record: unused },
    media,
    store,
    spool,
    live: liveDepsOf({ livestreams: db.livestreams, captures, bytes: createRecordedBytes({ captures, store, spool }) }),
    frames: createFrameRepo(db.pool),
    frameRequests: createFrameRequests(),
    fetchImage: unused,
    chats,
    chatArchive: chatArchive({ chats, store, spool }),
    chatSources: { youtube: { follow: unused }, twitch: { follow: unused } },
  };
}

const ffmpeg = (program = 'ffmpeg') => createFfmpegTools({ ffmpeg: program, ffprobe: 'ffprobe', backlogBytes: 1024 * 1024 });

/** A worker on real pg-boss whose finalize is retried once, a second later, instead of 20 times with backoff. */
async function startWorker(media: MediaTools): Promise<WorkerDeps> {
  jobs = await startJobs({
    pool: db.pool,
    onError: () => undefined,
    policies: { 'finalize-archive': { retryLimit: 1, retryDelay: 1, retryBackoff: false } },
  });
  const deps = workerDeps(media);
  const worker = createHandlers(deps, {
    workerId: 'finalizer',
    staleAfterSeconds: 30,
    unreachableSeconds: 600,
    watch: { pollSeconds: 1, neverLiveSeconds: 3600 },
  });
  stopWorking = await workJobs(jobs, db.url, worker);
  return deps;
}

async function storedChunksExist(id: string): Promise<boolean> {
  const chunks = await captures.chunks(id);
  const found = await Promise.all(chunks.map((c) => store.stat(c.key)));
  return chunks.length > 0 && found.every((s) => s !== null && s.bytes > 0);
}

describe('a finalize that fails for good', () => {
  it('fails its record after the last retry, says why on it and in the log, keeps the parts, and a retry archives them', async () => {
    const deps = await startWorker(ffmpeg('/bin/false')); // a remux that always fails, on media that is fine
    const id = await capturedRecord(await realMedia());
    await jobs.finalize(id);
    const failed = await waitForRecord(db.url, id, (r) => r.status !== 'live', 60_000);
    expect(failed.status).toBe('failed');
    expect(failed.failure_reason).toMatch(/^The recording could not be made into a video after 2 attempts: false exited with 1/);
    expect(await storedChunksExist(id)).toBe(true);
    // the hook writes the log line just after the record's move, which the wait above saw
    await expect.poll(() => captures.readLog(id), { timeout: 10_000 }).toContain(`[kura] failed: ${failed.failure_reason}`);

    // the admin's retry: the kept parts are made into a video again (here by a worker whose ffmpeg works)
    await stopWorking?.();
    jobs = await startJobs({ pool: db.pool, onError: () => undefined });
    expect(await reviveLivestream({ ...deps, scheduler: jobs }, id, 'local/admin')).toBe('finalize');
    expect((await db.livestreams.findById(id))?.status).toBe('live');
    await finalizeArchive(workerDeps(ffmpeg()), id, { workerId: 'other', staleAfterSeconds: 30 });
    const done = await db.livestreams.findById(id);
    expect(done).toMatchObject({ status: 'finished', failureReason: null });
    expect(done?.archive?.lengthSeconds).toBe(2);
    expect((await stat(path.join(dir, 'archive', objectKeys.video(id)))).size).toBe(done?.archive?.fileSizeBytes);
  });

  it('fails a recording of noise at the first attempt (no retries), keeping the parts', async () => {
    await startWorker(ffmpeg());
    const id = await capturedRecord(noise(2000));
    await jobs.finalize(id);
    const failed = await waitForRecord(db.url, id, (r) => r.status !== 'live', 60_000);
    expect(failed.status).toBe('failed');
    expect(failed.failure_reason).toMatch(/^The recording holds no playable audio or video: part 1 of 1 has no stream ffmpeg can read/);
    expect(await storedChunksExist(id)).toBe(true);
    // the job ends once the hook has failed the record: completed, never retried
    const job = async () =>
      (await db.pool.query(`select state, retry_count, output from pgboss.job where name = 'finalize-archive' and singleton_key = $1`, [id])).rows;
    await expect.poll(job, { timeout: 10_000 }).toEqual([{ state: 'completed', retry_count: 0, output: { permanentFailure: failed.failure_reason } }]);
  });
});

describe('a finished archive', () => {
  it('is recorded with its capture finalized in the same commit: no reader sees a finished record whose capture merely ended', async () => {
    const id = await capturedRecord(await realMedia());
    expect((await captures.get(id))?.state).toBe('ended');
    const archive = {
      fileSizeBytes: 1,
      lengthSeconds: 2,
      videoKey: objectKeys.video(id),
      logKey: objectKeys.log(id),
      thumbnailKey: null,
      sha256: 'a'.repeat(64),
    };
    await db.livestreams.transition(id, { type: 'archived', endedAt: new Date(), archive });
    const seen = await db.pool.query(`select l.status, c.state from livestreams l join captures c on c.livestream_id = l.id where l.id = $1`, [id]);
    expect(seen.rows).toEqual([{ status: 'finished', state: 'finalized' }]);
  });
});

describe('importing upcoming records', () => {
  it('fails those past the never-live deadline, with the reason, and leaves the others upcoming', async () => {
    const old = buildRecord({ id: 'catalogue2019', finished: false, scheduledStart: '2019-05-01T18:00:00Z' });
    const soon = buildRecord({ id: 'catalogueSoon', finished: false, scheduledStart: new Date(Date.now() + 3600_000).toISOString() });
    await importLivestreams(db, [old, soon], { now: new Date(), neverLiveSeconds: 12 * 3600 });
    expect(await db.livestreams.findById('catalogue2019')).toMatchObject({
      status: 'failed',
      failureReason: 'No stream appeared within 12 h of the scheduled start (imported as upcoming after its deadline).',
    });
    expect((await db.livestreams.findById('catalogueSoon'))?.status).toBe('upcoming');
  });
});
