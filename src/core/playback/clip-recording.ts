// Decisions: docs/decisions/0129-live-clips.md
import { fileNameOf, objectMeta, type ObjectMeta } from '../archive/object-keys.js';
import type { ArchiveStore, ByteSource } from '../archive/ports.js';
import type { Gap } from '../capture/capture.js';
import { AppError } from '../errors.js';
import { getLivestream } from '../records/get-livestream.js';
import type { Livestream } from '../records/livestream.js';
import { clipLive, type LiveClipDeps } from './clip-live.js';
import { linkTimeOf } from '../time-text.js';
import { clipRange, type ClipAsked } from './clip-times.js';
import type { LostStretch } from './live-clip-plan.js';
import type { Chapter, CutClip } from './ports.js';

/** What clips read: the records, the stored archives, live playback's view of captures under way, and the cutter. */
export interface ClipDeps extends LiveClipDeps {
  store: Pick<ArchiveStore, 'stat' | 'read' | 'localPath'>;
}

/** A clip being cut, with how it is served: its type and a file name that says the record and the times. */
export interface Clip extends CutClip {
  meta: ObjectMeta;
  /** The name it is saved under (also in `meta`'s Content-Disposition). */
  fileName: string;
  /** Where it ends in the recording (the end asked for, or the recording's end before it). */
  endSeconds: number;
  /** Stretches the recording lost inside the clip (seconds from its start), which it leaves out. */
  lost: LostStretch[];
}

/**
 * Cuts `start`–`end` or the `last` seconds (as parseTime reads them) of a record, without
 * re-encoding: of a finished record's stored archive, reading only the parts of it the clip
 * needs; of a record being recorded, of what is recorded so far (see clipLive). Throws
 * `livestream_not_found`, `invalid_parameter` (a bad or too long range, naming the field),
 * `archive_not_ready` (upcoming, failed, or archived elsewhere: an imported URL),
 * `capture_not_started` and `archive_missing` (not in storage).
 */
export async function clipRecording(deps: ClipDeps, request: { id: string } & ClipAsked): Promise<Clip> {
  const record = await getLivestream(deps, request.id);
  const clip = record.status === 'live' ? await clipLive(deps, record, request) : await clipArchive(deps, record, request);
  const named = { id: record.id, title: `${record.title || record.id} (${linkTimeOf(clip.startSeconds)}-${linkTimeOf(clip.endSeconds)})` };
  return { ...clip, meta: objectMeta(named, 'video'), fileName: fileNameOf(named, 'video') };
}

async function clipArchive(deps: ClipDeps, record: Livestream, asked: ClipAsked): Promise<CutClip & { endSeconds: number; lost: LostStretch[] }> {
  const { video, lengthSeconds } = await storedVideo(deps, record);
  const range = clipRange(asked, lengthSeconds, deps.maxSeconds);
  const [clip, gaps] = await Promise.all([deps.cutter.cut(video, range), deps.captures.gaps(record.id)]);
  return { ...clip, endSeconds: range.endSeconds, lost: lostWithin(gaps, clip.startSeconds, range.endSeconds) };
}

/** The lost stretches whose place on the timeline is known that lie in `start`–`end`, from `start`. */
function lostWithin(gaps: readonly Gap[], start: number, end: number): LostStretch[] {
  return gaps.flatMap(({ atSeconds, seconds }) => {
    if (atSeconds == null || atSeconds + seconds <= start || atSeconds >= end) return [];
    const from = Math.max(atSeconds, start);
    return [{ atSeconds: from - start, seconds: Math.min(atSeconds + seconds, end) - from }];
  });
}

/**
 * A finished record's stored archive as a source read on demand, with its length. Throws
 * `archive_not_ready` (not finished, or archived elsewhere) and `archive_missing` (not in storage).
 */
export async function storedVideo(deps: Pick<ClipDeps, 'store'>, record: Livestream): Promise<{ video: ByteSource; lengthSeconds: number }> {
  const key = record.archive?.videoKey ?? null;
  if (record.status !== 'finished' || key === null || record.archive === null) {
    const where = record.archive?.externalUrl
      ? `it is archived elsewhere (${record.archive.externalUrl}): only what Kura stores can be cut`
      : `status: ${record.status}`;
    throw new AppError('conflict', 'archive_not_ready', `${record.id} has no archive here to cut (${where}).`);
  }
  const object = await deps.store.stat(key);
  if (object === null) throw new AppError('gone', 'archive_missing', `The video of ${record.id} is not in storage.`);
  const local = deps.store.localPath(key);
  const video = {
    bytes: object.bytes,
    read: (bytes: { start: number; end: number }) => readRange(deps.store, key, bytes),
    ...(local === null ? {} : { files: [local] }),
  };
  return { video, lengthSeconds: record.archive.lengthSeconds };
}

/** The whole archive of a finished record with `chapters` in it, copied as it is read. Throws `archive_not_ready` and `archive_missing`. */
export async function chapteredArchive(deps: Pick<ClipDeps, 'store' | 'cutter'>, record: Livestream, chapters: readonly Chapter[]) {
  const { video } = await storedVideo(deps, record);
  return { ...(await deps.cutter.chaptered(video, chapters)), meta: objectMeta(record, 'video') };
}

/** Bytes `range` of the object `key`, read from the store as they are asked for. */
async function* readRange(store: Pick<ArchiveStore, 'read'>, key: string, range: { start: number; end: number }): AsyncIterable<Uint8Array> {
  yield* (await store.read(key, range)) as AsyncIterable<Uint8Array>;
}
