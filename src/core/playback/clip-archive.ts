// Decisions: docs/decisions/0128-clips.md
import { fileNameOf, objectMeta, type ObjectMeta } from '../archive/object-keys.js';
import type { ArchiveStore } from '../archive/ports.js';
import { AppError } from '../errors.js';
import { getLivestream } from '../records/get-livestream.js';
import type { LivestreamRepo } from '../records/ports.js';
import { clipRange, linkTimeOf, type ClipAsked } from './clip-times.js';
import type { ClipCutter, CutClip } from './ports.js';

export interface ClipDeps {
  livestreams: LivestreamRepo;
  store: Pick<ArchiveStore, 'stat' | 'read' | 'localPath'>;
  cutter: ClipCutter;
  /** The longest clip cut (KURA_CLIP_MAX_SECONDS). */
  maxSeconds: number;
}

/** A clip being cut, with how it is served: its type and a file name that says the record and the times. */
export interface ArchiveClip extends CutClip {
  meta: ObjectMeta;
  /** The name it is saved under (also in `meta`'s Content-Disposition). */
  fileName: string;
  /** Where it ends in the recording (the end asked for, or the recording's end before it). */
  endSeconds: number;
}

/**
 * Cuts `start`–`end` or the `last` seconds (as parseTime reads them) of a finished record's stored archive, without
 * re-encoding, reading only the parts of the archive the clip needs. Throws `livestream_not_found`,
 * `invalid_parameter` (a bad or too long range, naming the field), `archive_not_ready` (not
 * finished, or archived elsewhere: an imported URL) and `archive_missing` (not in storage).
 */
export async function clipArchive(deps: ClipDeps, request: { id: string } & ClipAsked): Promise<ArchiveClip> {
  const record = await getLivestream(deps, request.id);
  const key = record.archive?.videoKey ?? null;
  if (record.status !== 'finished' || key === null || record.archive === null) {
    const where = record.archive?.externalUrl
      ? `it is archived elsewhere (${record.archive.externalUrl}): only what Kura stores can be clipped`
      : `status: ${record.status}`;
    throw new AppError('conflict', 'archive_not_ready', `${record.id} has no archive here to clip (${where}).`);
  }
  const range = clipRange(request, record.archive.lengthSeconds, deps.maxSeconds);
  const object = await deps.store.stat(key);
  if (object === null) throw new AppError('gone', 'archive_missing', `The video of ${record.id} is not in storage.`);
  const local = deps.store.localPath(key);
  const video = {
    bytes: object.bytes,
    read: (bytes: { start: number; end: number }) => readRange(deps.store, key, bytes),
    ...(local === null ? {} : { files: [local] }),
  };
  const clip = await deps.cutter.cut(video, range);
  const named = { id: record.id, title: `${record.title || record.id} (${linkTimeOf(clip.startSeconds)}-${linkTimeOf(range.endSeconds)})` };
  return { ...clip, endSeconds: range.endSeconds, meta: objectMeta(named, 'video'), fileName: fileNameOf(named, 'video') };
}

/** Bytes `range` of the object `key`, read from the store as they are asked for. */
async function* readRange(store: Pick<ArchiveStore, 'read'>, key: string, range: { start: number; end: number }): AsyncIterable<Uint8Array> {
  yield* (await store.read(key, range)) as AsyncIterable<Uint8Array>;
}
