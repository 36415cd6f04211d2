import { describeEndReason, type Capture } from './capture.js';
import { keepLease } from './lease.js';
import type { Livestream } from './livestream.js';
import { objectKeys, objectMeta } from './object-keys.js';
import type { ArchiveStore, CaptureRepo, LivestreamRepo, MediaTools, Spool } from './ports.js';

export interface FinalizeDeps {
  livestreams: LivestreamRepo;
  captures: CaptureRepo;
  media: MediaTools;
  store: ArchiveStore;
  spool: Spool;
  /** Fetches the source's own thumbnail image (through the SSRF-safe fetcher). */
  fetchImage: (url: string) => Promise<Buffer>;
}

/**
 * Joins the captured parts into one MP4 (remux only), measures it, stores video, thumbnail and
 * log, and marks the record finished with what the stored file is. Idempotent: a finalized
 * capture is left alone, and the spool is removed only after every object is stored.
 */
export async function finalizeArchive(deps: FinalizeDeps, id: string, lease: { workerId: string; staleAfterSeconds: number }): Promise<void> {
  // one finalize at a time, on a lease like the capture's: if this worker dies, the watchdog
  // asks again once the lease is stale, and the next worker starts over from the spool
  const capture = await deps.captures.claimFinalize(id, lease.workerId, lease.staleAfterSeconds);
  const record = await deps.livestreams.findById(id);
  if (capture === null || record === null) return; // finalized already, or another worker is at it
  const stopLease = keepLease(deps.captures, id, lease.workerId, (lease.staleAfterSeconds * 1000) / 3);
  try {
    await finalizeClaimed(deps, id, capture, record);
  } finally {
    stopLease();
  }
}

async function finalizeClaimed(deps: FinalizeDeps, id: string, capture: Capture, record: Livestream): Promise<void> {
  const parts = await deps.captures.parts(id);
  if (parts.length === 0) {
    await deps.livestreams.update(id, { status: 'failed', failureReason: `Nothing was captured: ${describeEndReason(capture.endReason)}.`, endedAt: new Date() });
    await deps.captures.markFinalized(id);
    await deps.spool.remove(id);
    return;
  }
  const video = deps.spool.workPath(id, 'archive.mp4');
  const ffmpegLog = await deps.media.remux(parts.map((p) => deps.spool.partPath(id, p.part)), video);
  await deps.captures.appendLog(id, ffmpegLog.map((line) => `[ffmpeg] ${line}`));
  const { durationSeconds } = await deps.media.probe(video);
  const thumbnail = deps.spool.workPath(id, 'thumbnail.jpg');
  const hasThumbnail = await storeThumbnail(deps, record, video, thumbnail, durationSeconds);
  const stored = await deps.store.put(objectKeys.video(id), video, objectMeta(record, 'video'));
  if (hasThumbnail) await deps.store.put(objectKeys.thumbnail(id), thumbnail, objectMeta(record, 'thumbnail'));
  const gaps = await deps.captures.gaps(id);
  await deps.captures.appendLog(id, [
    `[kura] archived ${stored.bytes} bytes, ${durationSeconds.toFixed(3)} s, sha256 ${stored.sha256}; ${gaps.length} gap(s)`,
  ]);
  const logFile = await deps.spool.writeFile(id, 'archive.log', await deps.captures.readLog(id));
  await deps.store.put(objectKeys.log(id), logFile, objectMeta(record, 'log'));
  await deps.livestreams.update(id, {
    status: 'finished',
    endedAt: capture.endedAt ?? new Date(),
    archive: {
      fileSizeBytes: stored.bytes,
      lengthSeconds: Math.round(durationSeconds),
      videoKey: objectKeys.video(id),
      logKey: objectKeys.log(id),
      thumbnailKey: hasThumbnail ? objectKeys.thumbnail(id) : null,
      sha256: stored.sha256,
    },
  });
  await deps.captures.markFinalized(id);
  await deps.spool.remove(id);
}

/**
 * The archive's thumbnail, as a local JPEG: the source's own (a YouTube stream's, chosen by its
 * streamer, kept even if YouTube later removes it), else a frame of the captured video.
 */
async function storeThumbnail(deps: FinalizeDeps, record: Livestream, video: string, output: string, durationSeconds: number): Promise<boolean> {
  const log = (line: string) => deps.captures.appendLog(record.id, [`[kura] ${line}`]);
  if (record.thumbnailUrl) {
    try {
      await deps.spool.writeFile(record.id, 'thumbnail.jpg', await deps.fetchImage(record.thumbnailUrl));
      return true;
    } catch (error) {
      await log(`the source's thumbnail could not be fetched (${(error as Error).message}); using a frame of the video`);
    }
  }
  return deps.media.thumbnail(video, output, Math.min(10, durationSeconds / 2)).then(
    () => true,
    async (error: Error) => {
      await log(`no thumbnail: ${error.message}`);
      return false;
    },
  );
}
