import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import { AppError } from '../../src/core/errors.js';
import type { SourceStatus, StreamSource } from '../../src/core/sources/ports.js';
import { lookAfterEnd } from '../../src/core/record-actions/go-on-recording.js';
import { queueStream } from '../../src/core/record-actions/queue-stream.js';
import { sweepLifecycle } from '../../src/core/record-actions/sweep-lifecycle.js';
import { createSweepRepo } from '../../src/adapters/db/sweep-repo.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { queuedJobs, startJobsWithoutWorkers } from '../support/jobs.js';

// A stream that goes on after its capture ended as it might (decision 0090): the records,
// captures and chunks are real rows and objects, the jobs asked for real pg-boss jobs; only the
// source's answers are scripted (what the yt-dlp and googlevideo stand-ins say end to end, in
// test/e2e/youtube-goes-on.test.ts).
let db: TestDatabase;
let jobs: Jobs;
let dir: string;
let store: ArchiveStore;
beforeAll(async () => {
  db = await createTestDatabase();
  jobs = await startJobsWithoutWorkers(db.pool);
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-go-on-'));
  store = createFsStore(dir);
});
afterAll(async () => {
  await jobs.stop(0);
  await db.drop();
  await rm(dir, { recursive: true, force: true });
});

const NOW = new Date();
const HOUR = 3600_000;
const format = (id: string, mime: string) => ({
  id,
  url: `https://rr1.googlevideo.example/videoplayback?itag=${id}`,
  mime,
  codec: 'x',
  width: null,
  height: null,
  fps: null,
  bitrate: 1,
});
const fragments = {
  video: format('299', 'video/mp4'),
  audio: format('140', 'audio/mp4'),
  fragmentSeconds: 2,
  offered: [format('299', 'video/mp4'), format('140', 'audio/mp4')],
};

/** A YouTube source whose video `id` is accepted, and whose every check answers `status` (counted). */
function youtubeSaying(id: string, status: SourceStatus) {
  const asked = { checks: 0 };
  const source: StreamSource = {
    recognises: () => true,
    inspect: async (url) => ({ kind: 'accepted', platform: 'youtube', id, canonicalUrl: url, details: null }),
    qualities: async () => [],
    check: async (_url, _quality, options) => {
      asked.checks += 1;
      expect(options?.newest).toBe(true); // only the newest fragment tells whether there is more
      return status;
    },
  };
  return { source, asked };
}
const live = (newestFragment: number): SourceStatus => ({ state: 'live', fragments, newestFragment });

/**
 * A YouTube record archived from fragments 0 to 4 (sequences 0 to 9) whose capture ended `endReason`,
 * its two chunks in the store: kept until `keptUntil` (as finalize leaves one that may go on), or finalized.
 */
async function archived(id: string, endReason: string, keptUntil: Date | null) {
  const url = `https://www.youtube.com/watch?v=${id}`;
  await db.livestreams.upsertMany([
    {
      id,
      platform: 'youtube',
      sourceUrl: url,
      status: 'upcoming',
      failureReason: null,
      title: `Stream ${id}`,
      channelName: 'Channel',
      channelId: 'UCchannel',
      thumbnailUrl: null,
      scheduledStart: new Date(NOW.getTime() - 2 * HOUR),
      startedAt: null,
      endedAt: null,
      archive: null,
      submitters: ['local/first'],
      requestedQuality: null,
    },
  ]);
  await db.livestreams.transition(id, { type: 'went_live', at: new Date(NOW.getTime() - HOUR) });
  await db.captures.claim(id, 'worker-1', 30);
  await db.captures.setFragmentFormats(id, { video: '299', audio: '140', fragmentSeconds: 2 });
  for (let sequence = 0; sequence < 10; sequence++) {
    await db.captures.recordSegment(id, { sequence, part: 1, endOffset: (sequence + 1) * 100, durationSeconds: sequence % 2 === 0 ? 2 : 0 }, []);
  }
  const keys = [objectKeys.captureChunk(id, 1, 0, 'a'), objectKeys.captureChunk(id, 1, 500, 'b')];
  for (const [i, key] of keys.entries()) {
    const file = path.join(dir, `${id}-${i}`);
    await writeFile(file, Buffer.alloc(500));
    await store.put(key, file, { contentType: 'application/octet-stream', contentDisposition: 'attachment' });
    await db.captures.recordChunk(id, 'worker-1', { part: 1, startOffset: i * 500, endOffset: (i + 1) * 500, key });
  }
  await db.captures.end(id, endReason);
  const archive = {
    fileSizeBytes: 1000,
    lengthSeconds: 10,
    videoKey: objectKeys.video(id),
    logKey: objectKeys.log(id),
    thumbnailKey: null,
    sha256: 'a'.repeat(64),
  };
  await db.livestreams.transition(id, { type: 'archived', endedAt: new Date(), archive, ...(keptUntil === null ? {} : { keptUntil }) });
  return { url, keys };
}

const stored = async (keys: string[]) => (await Promise.all(keys.map((key) => store.stat(key)))).filter((object) => object !== null).length;
const deps = (source: StreamSource) => ({ livestreams: db.livestreams, captures: db.captures, scheduler: jobs, source, store });

describe('a submission of an archived stream whose capture was kept', () => {
  it('goes on in the same record when the source serves a fragment past the last recorded: live again, the capture recording from its next fragment', async () => {
    const { url, keys } = await archived('kGoesOn0001', 'not_live', new Date(NOW.getTime() + 100 * HOUR));
    const { source } = youtubeSaying('kGoesOn0001', live(12));
    const record = await queueStream(deps(source), { url, submitter: 'local/second', now: NOW });
    expect(record).toMatchObject({ id: 'kGoesOn0001', status: 'live', submitters: ['local/first', 'local/second'] });
    expect(await db.captures.get('kGoesOn0001')).toMatchObject({
      state: 'capturing',
      nextSequence: 10,
      endReason: null,
      endedAt: null,
      keptUntil: null,
      workerId: null,
    });
    expect(await queuedJobs(db, 'capture-stream', 'kGoesOn0001')).toHaveLength(1);
    expect(await stored(keys)).toBe(2); // what was recorded is there to be archived again with the rest
    expect(await db.captures.readLog('kGoesOn0001')).toMatch(
      /the stream went on \(the source serves fragments up to 12; 5 is the next to record; submitted again by local\/second\)/,
    );
  });

  it('is archived already while the source serves nothing past the last recorded fragment, and the capture stays kept', async () => {
    const { url } = await archived('kGoesOn0002', 'idle', new Date(NOW.getTime() + 100 * HOUR));
    const { source } = youtubeSaying('kGoesOn0002', live(4));
    const refused = await queueStream(deps(source), { url, submitter: 'local/second', now: NOW }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'already_archived' });
    expect(await db.livestreams.findById('kGoesOn0002')).toMatchObject({ status: 'finished', submitters: ['local/first'] });
    expect((await db.captures.get('kGoesOn0002'))?.state).toBe('kept');
  });

  it('is archived already, without asking the source, when the capture ended for good', async () => {
    const { url } = await archived('kGoesOn0003', 'endlist', null);
    const { source, asked } = youtubeSaying('kGoesOn0003', live(12));
    await expect(queueStream(deps(source), { url, submitter: 'local/second', now: NOW })).rejects.toMatchObject({ code: 'already_archived' });
    expect(asked.checks).toBe(0);
    expect((await db.captures.get('kGoesOn0003'))?.state).toBe('finalized');
  });
});

describe("Kura's own look at a kept capture's stream", () => {
  const policy = { pollSeconds: 60 };

  it('goes on when the stream did, as the look after its end', async () => {
    await archived('kGoesOn0004', 'idle', new Date(NOW.getTime() + 100 * HOUR));
    const { source } = youtubeSaying('kGoesOn0004', { state: 'ended', reason: 'post_live', fragments, newestFragment: 7 });
    expect(await lookAfterEnd(deps(source), 'kGoesOn0004', policy, NOW)).toBe('capturing');
    expect((await db.livestreams.findById('kGoesOn0004'))?.status).toBe('live');
    expect(await queuedJobs(db, 'capture-stream', 'kGoesOn0004')).toHaveLength(1);
  });

  it('looks again later while the source cannot say: first after the poll interval, then at half the time since the end', async () => {
    await archived('kGoesOn0005', 'not_live', new Date(NOW.getTime() + 100 * HOUR));
    const { source } = youtubeSaying('kGoesOn0005', { state: 'unknown', trouble: 'rate_limited', reason: 'HTTP Error 429' });
    expect(await lookAfterEnd(deps(source), 'kGoesOn0005', policy, NOW)).toBe('waiting');
    const soon = (await queuedJobs(db, 'watch-stream', 'kGoesOn0005')).map((job) => job.startAfter.getTime() - NOW.getTime());
    expect(soon).toEqual([60_000]);
    // that look ran: four hours after the end, the next waits half of that, an hour at most
    await db.pool.query(`delete from pgboss.job where name = 'watch-stream' and data->>'livestreamId' = $1`, ['kGoesOn0005']);
    const later = new Date(NOW.getTime() + 4 * HOUR);
    expect(await lookAfterEnd(deps(source), 'kGoesOn0005', policy, later)).toBe('waiting');
    const looks = (await queuedJobs(db, 'watch-stream', 'kGoesOn0005')).map((job) => job.startAfter.getTime() - later.getTime());
    expect(looks).toEqual([HOUR]);
    expect((await db.captures.get('kGoesOn0005'))?.state).toBe('kept');
  });

  it('lets the chunks go when the broadcast ended with nothing past the last recorded fragment', async () => {
    const { keys } = await archived('kGoesOn0006', 'not_live', new Date(NOW.getTime() + 100 * HOUR));
    const { source } = youtubeSaying('kGoesOn0006', { state: 'ended', reason: 'the broadcast has ended (post_live)', fragments, newestFragment: 4 });
    expect(await stored(keys)).toBe(2);
    expect(await lookAfterEnd(deps(source), 'kGoesOn0006', policy, NOW)).toBe('let_go');
    expect(await db.captures.get('kGoesOn0006')).toMatchObject({ state: 'finalized', keptUntil: null });
    expect(await stored(keys)).toBe(0);
    expect((await db.livestreams.findById('kGoesOn0006'))?.status).toBe('finished');
    expect(await db.captures.readLog('kGoesOn0006')).toMatch(
      /the stream did not go on \(the broadcast has ended \(post_live\); the source serves no fragment past 4/,
    );
  });

  it('lets the chunks go once they were kept their whole time, without asking the source', async () => {
    const { keys } = await archived('kGoesOn0007', 'idle', new Date(NOW.getTime() + HOUR));
    const { source, asked } = youtubeSaying('kGoesOn0007', live(12));
    expect(await lookAfterEnd(deps(source), 'kGoesOn0007', policy, new Date(NOW.getTime() + HOUR))).toBe('let_go');
    expect(asked.checks).toBe(0);
    expect(await stored(keys)).toBe(0);
  });

  it('is asked again by the sweep for a kept capture nothing looks at', async () => {
    await archived('kGoesOn0008', 'idle', new Date(NOW.getTime() + 100 * HOUR));
    expect(await queuedJobs(db, 'watch-stream', 'kGoesOn0008')).toEqual([]);
    const sweep = createSweepRepo(db.pool);
    const repairs = await sweepLifecycle(
      { ...deps(youtubeSaying('kGoesOn0008', live(0)).source), jobs, sweep },
      { neverLiveSeconds: 3600, leaseSeconds: 60, batch: 100 },
      NOW,
    );
    expect(repairs).toContainEqual({ id: 'kGoesOn0008', action: 'watch' });
    expect(await queuedJobs(db, 'watch-stream', 'kGoesOn0008')).toHaveLength(1);
  });
});
