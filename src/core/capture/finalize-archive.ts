// Decisions: docs/decisions/0022-final-failure-keeps-what-was-captured.md, docs/decisions/0039-finalize-writes-once.md, docs/decisions/0083-what-a-recording-pays-for.md, docs/decisions/0090-a-stream-that-goes-on.md, docs/decisions/0092-leases-and-worker-sessions.md
import { describeEndReason, mayGoOn, type Capture, type CapturePart, type StoredChunk } from './capture.js';
import { PermanentError } from '../errors.js';
import { isFinalized } from './capture-lifecycle.js';
import { readPlan, storedPart } from './coverage.js';
import { collect } from '../archive/collect-bytes.js';
import { trackSource, trackSpans, type FragmentSpan } from './fragment-tracks.js';
import { laneCount, laneSpans } from './playlist-lanes.js';
import { keepLease } from './lease.js';
import type { Livestream } from '../records/livestream.js';
import { objectKeys, objectMeta } from '../archive/object-keys.js';
import type { ByteRange } from '../archive/byte-range.js';
import type { ArchiveStore, ByteSource } from '../archive/ports.js';
import type { CaptureCompaction, CaptureLease, CaptureStates, ChatArchive, ChunkLog, EncoderLog, MediaTools, PartLog, Spool } from './ports.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { Scheduler } from '../scheduler.js';

export interface FinalizeDeps {
  livestreams: LivestreamRepo;
  captures: CaptureLease & CaptureStates & PartLog & ChunkLog & EncoderLog & CaptureCompaction;
  media: MediaTools;
  store: ArchiveStore;
  spool: Spool;
  /** Fetches the source's own thumbnail image (through the SSRF-safe fetcher). */
  fetchImage: (url: string) => Promise<Buffer>;
  chatArchive: ChatArchive;
  /** Asks for the first look at a stream that may go on (see go-on-recording.ts). */
  scheduler: Pick<Scheduler, 'watch'>;
}

/**
 * How long a capture that ended as its stream may go on keeps its chunks, its stream looked at
 * meanwhile (decision 0090): YouTube's retention of a live stream's fragments, 120 h.
 */
export const KEPT_SECONDS = 432_000;

/**
 * Joins the captured parts into one MP4 (remux only), measures it, stores video, thumbnail and
 * log, and marks the record finished with what the stored file is. Idempotent: a finalized
 * capture is left alone, and the spool is removed only after every object is stored. A failed
 * record is left as it is, its parts kept. Throws PermanentError when the parts hold no media
 * ffmpeg can read (noise): retrying cannot mend that.
 */
export async function finalizeArchive(deps: FinalizeDeps, id: string, lease: { workerId: string; staleAfterSeconds: number }): Promise<void> {
  // one finalize at a time, on a lease like the capture's: if this worker dies, the watchdog
  // asks again once the lease is stale, and the next worker starts over from the spool
  const capture = await deps.captures.claimFinalize(id, lease.workerId, lease.staleAfterSeconds);
  const record = await deps.livestreams.findById(id);
  if (record?.status === 'failed' && capture !== null) {
    // given up on (its parts wait for an admin's retry, which moves it back to live first)
    await deps.captures.release(id, lease.workerId);
    return;
  }
  if (capture === null || record === null) {
    // finalized already (a retry after its chunks could not all be deleted, or a kept capture's
    // after its spool could not be removed), or another worker is at it
    const state = (await deps.captures.get(id))?.state;
    if (state !== undefined && isFinalized(state)) await deleteChunks(deps, id);
    if (state === 'kept') await keepForLater(deps, id);
    return;
  }
  const stopLease = keepLease(deps.captures, id, lease.workerId, (lease.staleAfterSeconds * 1000) / 3);
  try {
    await finalizeClaimed(deps, id, capture, record, lease.staleAfterSeconds * 1000);
  } finally {
    stopLease();
  }
}

async function finalizeClaimed(deps: FinalizeDeps, id: string, capture: Capture, record: Livestream, chatWaitMs: number): Promise<void> {
  if (record.status !== 'finished') {
    const parts = await deps.captures.parts(id);
    if (parts.length === 0) {
      await deps.livestreams.transition(id, { type: 'gave_up', reason: `Nothing was captured: ${describeEndReason(capture.endReason)}.`, endedAt: new Date() });
    } else {
      const sources = partSources(deps, parts, await deps.captures.chunks(id));
      const archive = await archiveInput(deps, capture, parts, sources);
      const keptUntil = mayGoOn(capture) ? new Date(Date.now() + KEPT_SECONDS * 1000) : undefined;
      await storeArchive(deps, record, capture, archive, chatWaitMs, keptUntil);
    }
  }
  // the chunks go only once record and capture say so (a finalize retried after this point skips
  // straight here, or to deleteChunks), so a crash anywhere before leaves all needed to start over
  await deps.captures.markFinalized(id);
  if ((await deps.captures.get(id))?.state === 'kept') return keepForLater(deps, id);
  // its segments and chat messages give way to summaries (a crash before leaves them to the sweep)
  await deps.captures.compact(id);
  await deleteChunks(deps, id);
  await deps.spool.remove(id);
}

/** A kept capture's chunks stay in the store for its stream to go on; this worker's spool goes, and the stream is looked at (decision 0090). */
async function keepForLater(deps: Pick<FinalizeDeps, 'spool' | 'scheduler'>, id: string): Promise<void> {
  await deps.spool.remove(id);
  await deps.scheduler.watch(id);
}

/** Deletes a finalized capture's chunks and its recent frame (the archive's thumbnail replaces it) from the store (idempotent: a failure is retried with the job). */
export async function deleteChunks(deps: { captures: Pick<ChunkLog, 'chunks'>; store: Pick<ArchiveStore, 'delete'> }, id: string): Promise<void> {
  for (const chunk of await deps.captures.chunks(id)) await deps.store.delete(chunk.key);
  await deps.store.delete(objectKeys.liveFrame(id));
}

/** A part to remux: its bytes, how long it plays, and how many bytes its first stored chunk holds. */
type PartSource = ByteSource & { seconds: number; firstChunkBytes: number };

/**
 * What finalize makes the archive of: the parts one after another (a playlist's capture), or a
 * video track and audio tracks side by side (a capture of fragments, or of a playlist with audio
 * renditions: each tagged with its language).
 */
type ArchiveInput = { parts: PartSource[] } | { video: PartSource; audio: Array<{ source: PartSource; language: string | null }> };

/** The parts, or the tracks read from them of a capture of fragments (see fragment-tracks.ts) or of lanes (see playlist-lanes.ts). */
async function archiveInput(deps: FinalizeDeps, capture: Capture, parts: readonly CapturePart[], sources: PartSource[]): Promise<ArchiveInput> {
  if (capture.fragmentFormats === null && capture.audioLanes.length === 0) return { parts: sources };
  const byPart = new Map(parts.map((part, i) => [part.part, sources[i] as PartSource]));
  const segments = await deps.captures.segmentsFrom(capture.livestreamId, 0);
  const seconds = parts.reduce((sum, part) => sum + part.seconds, 0);
  const firstChunkBytes = sources[0]?.firstChunkBytes ?? 0;
  const track = (spans: readonly FragmentSpan[]): PartSource => ({ ...trackSource(spans, byPart), seconds, firstChunkBytes });
  if (capture.fragmentFormats !== null) {
    const spans = trackSpans(segments);
    return { video: track(spans.video), audio: [{ source: track(spans.audio), language: null }] };
  }
  const [video = [], ...audio] = laneSpans(segments, laneCount(capture.audioLanes));
  return { video: track(video), audio: audio.map((spans, i) => ({ source: track(spans), language: capture.audioLanes[i]?.language ?? null })) };
}

/** Remuxes the capture straight into the store, then stores thumbnail and log, and marks the record finished. */
async function storeArchive(
  deps: FinalizeDeps,
  record: Livestream,
  capture: Capture,
  input: ArchiveInput,
  chatWaitMs: number,
  keptUntil: Date | undefined,
): Promise<void> {
  const { id } = record;
  const video = await deps.store.beginWrite(objectKeys.video(id), objectMeta(record, 'video'));
  const workFile = deps.spool.workPath(id, 'archive.mp4');
  const parts = 'parts' in input ? input.parts : [input.video, ...input.audio.map((track) => track.source)];
  const thumbnail = deps.spool.workPath(id, 'thumbnail.jpg');
  const frame = frameSource(parts[0] as PartSource, Math.min(10, (parts[0] as PartSource).seconds / 2));
  // no thumbnail of the source's own nor a recent frame: the remux's run writes one if it can
  const remuxFrame = record.thumbnailUrl || capture.frameAt !== null ? undefined : { atSeconds: frame.atSeconds, output: thumbnail };
  const remuxed = await remuxOrExplain(deps, parts, () =>
    'parts' in input ? deps.media.remux(input.parts, video, workFile, remuxFrame) : deps.media.mux(input, video, workFile),
  );
  const { stored, durationSeconds } = remuxed;
  await deps.captures.appendLog(
    id,
    remuxed.log.map((line) => `[ffmpeg] ${line}`),
  );
  const hasThumbnail = remuxed.frameWritten || (await storeThumbnail(deps, record, capture.frameAt !== null, frame.source, thumbnail, frame.atSeconds));
  if (hasThumbnail) await deps.store.put(objectKeys.thumbnail(id), thumbnail, objectMeta(record, 'thumbnail'));
  const chatMessages = await deps.chatArchive.store(record, chatWaitMs);
  if (chatMessages !== null) await deps.captures.appendLog(id, [`[kura] stored the live chat (${chatMessages} messages)`]);
  const gaps = await deps.captures.gaps(id);
  await deps.captures.appendLog(id, [`[kura] archived ${stored.bytes} bytes, ${durationSeconds.toFixed(3)} s, sha256 ${stored.sha256}; ${gaps.length} gap(s)`]);
  if (keptUntil !== undefined) {
    const why = describeEndReason(capture.endReason);
    await deps.captures.appendLog(id, [`[kura] the stream may go on (${why}): its chunks are kept, and Kura looks at it until ${keptUntil.toISOString()}`]);
  }
  const logFile = await deps.spool.writeFile(id, 'archive.log', await deps.captures.readLog(id));
  await deps.store.put(objectKeys.log(id), logFile, objectMeta(record, 'log'));
  await deps.livestreams.transition(id, {
    type: 'archived',
    endedAt: capture.endedAt ?? new Date(),
    archive: {
      fileSizeBytes: stored.bytes,
      lengthSeconds: Math.round(durationSeconds),
      videoKey: objectKeys.video(id),
      logKey: objectKeys.log(id),
      thumbnailKey: hasThumbnail ? objectKeys.thumbnail(id) : null,
      sha256: stored.sha256,
    },
    ...(keptUntil === undefined ? {} : { keptUntil }),
  });
}

/**
 * The remux, or, when it fails, why: a part in which ffprobe finds no audio or video stream
 * (noise, or not media at all) makes a PermanentError; any other failure is thrown as it is, to be
 * retried (a store or disk hiccup).
 */
async function remuxOrExplain<T>(deps: Pick<FinalizeDeps, 'media'>, parts: readonly ByteSource[], remux: () => Promise<T>): Promise<T> {
  try {
    return await remux();
  } catch (error) {
    if (error instanceof PermanentError) throw error;
    for (const [index, part] of parts.entries()) {
      if ((await deps.media.streams(part)) === 0) {
        throw new PermanentError(
          `The recording holds no playable audio or video: part ${index + 1} of ${parts.length} has no stream ffmpeg can read (${(error as Error).message}).`,
        );
      }
    }
    throw error;
  }
}

/** Each part as one run of bytes read from its stored chunks, and as their local files when the store keeps them here (see storedPart). */
function partSources(deps: Pick<FinalizeDeps, 'store'>, parts: readonly CapturePart[], chunks: readonly StoredChunk[]): PartSource[] {
  return parts.map((part) => {
    const { chunks: run, firstChunkBytes, files } = storedPart(part, chunks, (key) => deps.store.localPath(key));
    const { bytes, seconds } = part;
    return { bytes, seconds, firstChunkBytes, read: (range) => readChunks(deps.store, part.part, run, range), ...(files === null ? {} : { files }) };
  });
}

/** The bytes of `range` (inclusive) of a part, read from the stored chunks of its run (see readPlan). */
async function* readChunks(store: ArchiveStore, part: number, run: readonly StoredChunk[], range: ByteRange): AsyncIterable<Uint8Array> {
  const plan = readPlan(run, range);
  if (plan === null) throw new Error(`part ${part} is stored up to byte ${run.at(-1)?.endOffset ?? 0}: bytes ${range.start} to ${range.end} cannot be read`);
  for (const { chunk, offset, length } of plan) {
    yield* (await store.read(chunk.key, { start: offset, end: offset + length - 1 })) as AsyncIterable<Uint8Array>;
  }
}

/**
 * Where the thumbnail's frame is taken: in a part lying in local files, at `atSeconds`; in one read
 * from the store, which is copied to local disk for ffmpeg (it seeks many times to find a frame),
 * from its first bytes only — three times those its average rate gives up to that time, 4 MiB at
 * least, never more than its first chunk (the bound on a finalize's disk) — at `atSeconds` or
 * half-way into them, whichever comes first.
 */
function frameSource(part: PartSource, atSeconds: number): { source: ByteSource; atSeconds: number } {
  if (part.files !== undefined || !(part.seconds > 0)) return { source: part, atSeconds };
  const wanted = Math.max(4 * 1024 * 1024, Math.ceil((part.bytes * 3 * (atSeconds + 2)) / part.seconds));
  const bytes = Math.min(part.bytes, part.firstChunkBytes, wanted);
  return { source: { bytes, read: part.read }, atSeconds: Math.min(atSeconds, ((bytes / part.bytes) * part.seconds) / 2) };
}

/**
 * The archive's thumbnail, as a local JPEG: the source's own (a YouTube stream's, chosen by its
 * streamer, kept even if YouTube later removes it), else the recent frame made while recording
 * (`hasLiveFrame`: a frame of the stream's last minute, which ffmpeg need not make again), else a
 * frame of the captured video.
 */
async function storeThumbnail(
  deps: FinalizeDeps,
  record: Livestream,
  hasLiveFrame: boolean,
  video: ByteSource,
  output: string,
  atSeconds: number,
): Promise<boolean> {
  const log = (line: string) => deps.captures.appendLog(record.id, [`[kura] ${line}`]);
  if (record.thumbnailUrl) {
    try {
      await deps.spool.writeFile(record.id, 'thumbnail.jpg', await deps.fetchImage(record.thumbnailUrl));
      return true;
    } catch (error) {
      await log(`the source's thumbnail could not be fetched (${(error as Error).message}); using a frame of the video`);
    }
  }
  if (hasLiveFrame) {
    try {
      await deps.spool.writeFile(
        record.id,
        'thumbnail.jpg',
        Buffer.from(await collect((await deps.store.read(objectKeys.liveFrame(record.id))) as AsyncIterable<Uint8Array>)),
      );
      return true;
    } catch (error) {
      await log(`the recent frame could not be read (${(error as Error).message}); making a frame of the video`);
    }
  }
  return deps.media.thumbnail(video, output, atSeconds).then(
    () => true,
    async (error: Error) => {
      await log(`no thumbnail: ${error.message}`);
      return false;
    },
  );
}
