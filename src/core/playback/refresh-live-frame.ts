// Decisions: docs/decisions/0079-recording-progress.md, docs/decisions/0102-frames-only-while-looked-at.md
import { LIVE_FRAME_META, objectKeys } from '../archive/object-keys.js';
import type { ArchiveStore, ByteSource } from '../archive/ports.js';
import { trackOf } from '../capture/fragment-tracks.js';
import { laneCount, laneOf } from '../capture/playlist-lanes.js';
import type { LiveDeps } from './get-live-playlist.js';
import { isRecording } from '../capture/capture-lifecycle.js';
import type { RecordedSegment } from '../capture/capture.js';
import type { FrameRequests } from './frame-requests.js';
import type { FrameLog, MediaTools, Spool } from '../capture/ports.js';
import { collect } from '../archive/collect-bytes.js';
import { readLiveMedia } from './read-live-media.js';

/** What the recent frame is made with: the capture's recorded bytes (as live playback reads them), ffmpeg, the store and the spool. */
export interface LiveFrameDeps {
  live: LiveDeps;
  frames: FrameLog;
  media: Pick<MediaTools, 'thumbnail'>;
  store: Pick<ArchiveStore, 'put' | 'delete'>;
  spool: Pick<Spool, 'writeFile' | 'workPath' | 'removeFile'>;
}

/** How often the recent frame is replaced while someone looks at it. */
export const LIVE_FRAME_EVERY_MS = 60_000;
/**
 * How long after the last look frames go on being made: a page showing the frame asks for each new
 * one (its URL changes with it), so while it stays open a look follows every frame.
 */
export const LOOKED_AT_FOR_MS = 150_000;
/** How often a frame is tried for while none can be made yet (no segment recorded). */
const FIRST_FRAME_EVERY_MS = 5_000;
/** How far back from the next sequence the last recorded segment is looked for (lost ones and, for fragments, audio ones are skipped). */
const LOOK_BACK = 8;

/**
 * Stores a frame of the last recorded segment of a capture `workerId` records, as a JPEG under
 * objectKeys.liveFrame (replacing the one before), and notes when: ffmpeg reads that one segment
 * (an fMP4 one behind its part's initialization section; a fragment whole, as the source sent it)
 * and writes one frame, its work files removed after. `none` when no
 * segment is recorded yet, or the capture is not recording (or not `workerId`'s any more, or ended
 * while the frame was made: then the frame is deleted again). Throws when the segment cannot be
 * read or ffmpeg finds no frame in it.
 */
export async function refreshLiveFrame(deps: LiveFrameDeps, id: string, workerId: string): Promise<'stored' | 'none'> {
  const capture = await deps.live.captures.get(id);
  if (capture === null || !isRecording(capture.state) || capture.workerId !== workerId || capture.nextSequence === null) return 'none';
  const fragments = capture.fragmentFormats !== null;
  // a capture with audio renditions stores each lane's segments whole, as fragments are (see playlist-lanes.ts)
  const lanes = laneCount(capture.audioLanes);
  const whole = fragments || lanes > 1;
  const recent = await deps.live.captures.segmentsFrom(id, Math.max(0, capture.nextSequence - LOOK_BACK * lanes));
  const last = recent.filter((s) => (fragments ? trackOf(s.sequence) === 'video' : laneOf(s.sequence, lanes).lane === 0)).at(-1);
  if (last === undefined) return 'none';
  const bytes = whole ? await fragmentBytes(deps.live, id, last.sequence) : await segmentBytes(deps.live, id, last);
  // work files of their own, removed once used: a capture finalized on another worker leaves none here
  const source = await deps.spool.writeFile(id, 'live-frame.source', bytes);
  const output = deps.spool.workPath(id, 'live-frame.jpg');
  try {
    await deps.media.thumbnail(heldIn(source, bytes), output, 0);
    await deps.store.put(objectKeys.liveFrame(id), output, LIVE_FRAME_META);
  } finally {
    await Promise.all(['live-frame.source', 'live-frame.jpg'].map((name) => deps.spool.removeFile(id, name)));
  }
  if (await deps.frames.frameStored(id, workerId, new Date())) return 'stored';
  // the capture ended meanwhile, and its finalize may have deleted the frame already: this one must not outlive it
  const now = await deps.live.captures.get(id);
  if (now === null || !isRecording(now.state)) await deps.store.delete(objectKeys.liveFrame(id));
  return 'none';
}

/** What keeps a recording's frame: what makes it, and the looks at it this process hears of. */
export type KeepLiveFrameDeps = LiveFrameDeps & { frameRequests: FrameRequests };

/**
 * Makes a recording's recent frame while someone looks at it, until the returned function is
 * called. A look (`deps.frameRequests`) at a recording whose frame is a minute old, or that has none,
 * makes one at once; then a new one every LIVE_FRAME_EVERY_MS until LOOKED_AT_FOR_MS pass without a
 * look. Before a segment is recorded it is tried every few seconds; a failure (told to `onError`)
 * waits the full interval, so a stream ffmpeg cannot read costs one try a minute while looked at.
 * Nobody looking, no frame: finalize makes the archive's thumbnail itself.
 */
export function keepLiveFrame(deps: KeepLiveFrameDeps, id: string, workerId: string, onError: (error: Error) => void): () => void {
  let stopped = false;
  let making = false;
  let lookedAt = Number.NEGATIVE_INFINITY;
  // the next frame's time while frames are made: a look meanwhile has its frame already
  let timer: ReturnType<typeof setTimeout> | undefined;
  const make = async () => {
    timer = undefined;
    if (stopped || making || Date.now() - lookedAt >= LOOKED_AT_FOR_MS) return;
    making = true;
    const outcome = await refreshLiveFrame(deps, id, workerId).catch((error: Error) => {
      onError(error);
      return 'failed' as const;
    });
    making = false;
    if (!stopped) timer = setTimeout(() => void make(), outcome === 'none' ? FIRST_FRAME_EVERY_MS : LIVE_FRAME_EVERY_MS);
  };
  const stopWatching = deps.frameRequests.watch(id, () => {
    lookedAt = Date.now();
    if (timer === undefined) void make();
  });
  return () => {
    stopped = true;
    clearTimeout(timer);
    stopWatching();
  };
}

/** A segment of an HLS capture as ffmpeg plays it: MPEG-TS alone, fMP4 behind its part's initialization section. */
async function segmentBytes(live: LiveDeps, id: string, segment: RecordedSegment): Promise<Buffer> {
  const media = await readLiveMedia(live, { id, part: segment.part, sequence: segment.sequence });
  const init = media.format.kind === 'mpegts' ? null : await readLiveMedia(live, { id, part: segment.part, sequence: null });
  return Buffer.concat([...(init === null ? [] : [await collect(init.body)]), await collect(media.body)]);
}

/** A fragment as the source sent it (or a lane's segment as stored): a file of its own, initialization section included. */
async function fragmentBytes(live: LiveDeps, id: string, sequence: number): Promise<Buffer> {
  const span = await live.captures.segment(id, sequence);
  const body = span === null ? null : await live.bytes.read(id, span.part, { start: span.startOffset, end: span.endOffset - 1 });
  if (body === null) throw new Error(`fragment ${sequence} of ${id} cannot be read here`);
  return Buffer.from(await collect(body));
}

/** Bytes this process holds, which the local file `file` holds too (ffmpeg reads the file). */
function heldIn(file: string, bytes: Buffer): ByteSource {
  return {
    bytes: bytes.length,
    files: [file],
    async *read() {
      yield bytes;
    },
  };
}
