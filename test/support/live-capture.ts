import { expect } from 'vitest';
import { createHlsRecorder } from '../../src/adapters/capture/hls-recorder.js';
import { createRecordedBytes } from '../../src/adapters/capture/recorded-bytes.js';
import { createFrameRepo } from '../../src/adapters/db/frame-repo.js';
import { createFfmpegTools } from '../../src/adapters/media/ffmpeg-tools.js';
import { liveDepsOf } from '../../src/core/playback/get-live-playlist.js';
import type { LiveFrameDeps } from '../../src/core/playback/refresh-live-frame.js';
import { createSpool } from '../../src/adapters/capture/spool.js';
import { freeBytes } from '../../src/adapters/os/disk-space.js';
import { createFetcher } from '../../src/adapters/sources/http-fetch.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import type { CaptureRepo, Spool } from '../../src/core/capture/ports.js';
import type { TestApp } from './app.js';
import type { TestDatabase } from './database.js';
import { recorderLimits } from './recorder-limits.js';

/**
 * Records a fixture's (finished) stream with the real recorder into the spool and the app's fs
 * store, as a capture still in progress: its record stays `live`, its capture `capturing`. A
 * chunk every two segments: many chunks, as on S3 with a worker of its own.
 */
export async function recordLive(at: { kura: TestApp; captures: CaptureRepo; spoolDir: string; playlistUrl: string }, id: string): Promise<void> {
  const { kura, captures, spoolDir, playlistUrl } = at;
  await kura.db.pool.query(`insert into livestreams (id, platform, source_url, status, scheduled_start_at) values ($1, 'hls', $2, 'live', now())`, [
    id,
    playlistUrl,
  ]);
  const capture = await captures.claim(id, 'worker-1', 30);
  const recorder = createHlsRecorder({
    captures,
    fetcher: createFetcher({ allowPrivate: true }),
    spool: createSpool(spoolDir),
    store: createFsStore(kura.archiveDir),
    freeBytes,
    limits: recorderLimits({ chunkSeconds: 2 }),
  });
  expect(
    await recorder.record({ capture: capture!, playlist: { url: playlistUrl, headers: null, audio: [] }, workerId: 'worker-1' }, new AbortController().signal),
  ).toBe('endlist');
}

/** The recent frame's deps as the worker recording a capture has them: its spool, the fs store in `archiveDir`, the real ffmpeg. */
export function liveFrameDeps(at: {
  db: Pick<TestDatabase, 'livestreams' | 'pool'>;
  archiveDir: string;
  captures: CaptureRepo;
  spoolDir: string;
}): LiveFrameDeps & { store: ArchiveStore; spool: Spool } {
  const { db, captures } = at;
  const store = createFsStore(at.archiveDir);
  const spool = createSpool(at.spoolDir);
  const live = liveDepsOf({ livestreams: db.livestreams, captures, bytes: createRecordedBytes({ captures, store, spool }) });
  const media = createFfmpegTools({ ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', backlogBytes: 1024 * 1024 });
  return { live, frames: createFrameRepo(db.pool), media, store, spool };
}
