// Decisions: docs/decisions/0098-the-original-client-works-whole.md
import { parseRange, type ByteRange } from '../archive/byte-range.js';
import { objectKeys, objectMeta, type DownloadType, type ObjectMeta } from '../archive/object-keys.js';
import type { ArchiveStore } from '../archive/ports.js';
import { requireStoredChat } from '../chat/read-chat.js';
import type { ChatLog } from '../chat/ports.js';
import { AppError } from '../errors.js';
import { getLivestream } from '../records/get-livestream.js';
import type { Livestream } from '../records/livestream.js';
import type { LivestreamRepo } from '../records/ports.js';

/** What openDownload reads: the record, whether its chat was stored, and where its objects are. */
export interface DownloadDeps {
  livestreams: LivestreamRepo;
  chats: ChatLog;
  store: Pick<ArchiveStore, 'directUrl' | 'stat'>;
}

/** Who fetches, as far as the request tells: a download is counted for a person fetching the video, not for a crawler or a player. */
export interface Fetcher {
  /** False for a HEAD: it is sent no bytes. */
  receivesBytes: boolean;
  /** The User-Agent it names itself by ('' when none). */
  userAgent: string;
  /** A media element (`<video>`, `<audio>`) fetching to play, which fetches the same file many times. */
  playing: boolean;
}

/** One fetch of a record's download: which object, which bytes of it (`Range`, as sent), and who asks. */
export interface DownloadRequest {
  id: string;
  type: DownloadType;
  /** The byte range asked for, as the `Range` header says it; undefined: the whole object. */
  range: string | undefined;
  fetcher: Fetcher;
}

/** Elsewhere serves the download: object storage (Range and all), or the URL an imported record names. */
export interface RedirectedDownload {
  serve: 'redirect';
  url: string;
}

/** This process serves the stored object, or the bytes of it the range asked for. */
export interface StoredDownload {
  serve: 'object';
  key: string;
  meta: ObjectMeta;
  size: number;
  range: ByteRange | undefined;
}

/** The range asked for lies outside the object's `size` bytes. */
export interface UnsatisfiableRange {
  serve: 'range-not-satisfiable';
  size: number;
}

/**
 * What to serve for a download. `corrupt`: the video was found corrupt when verified (its size or
 * sha256 differs from the record's); it is served anyway, and the answer says so.
 */
export type Download = (RedirectedDownload | StoredDownload | UnsatisfiableRange) & { corrupt: boolean };

/** User agents of crawlers and link previews: their fetches are not downloads. */
const CRAWLER = /bot|crawl|spider|slurp|facebookexternalhit|embedly|preview|curl\/[\d.]+ \(monitor/i;

/**
 * Decides what a download of a record's video, log, thumbnail or chat serves, and counts it as a
 * download when a person fetches the video from its start. Throws `livestream_not_found`,
 * `archive_not_ready` (nothing to serve yet, or not in storage), `chat_not_found`, and
 * `archive_missing` (410: the video was not in storage when it was verified).
 */
export async function openDownload(deps: DownloadDeps, request: DownloadRequest): Promise<Download> {
  const { type, fetcher } = request;
  const record = await getLivestream(deps, request.id);
  if (type === 'video' && record.archive?.videoKey == null && record.archive?.externalUrl) {
    // an imported record that is not finished names a URL, not an archive: nothing to hand out yet
    if (record.status !== 'finished') throw new AppError('conflict', 'archive_not_ready', `${record.id} is not archived yet (status: ${record.status}).`);
    await countIfDownload(deps, fetcher, record.id);
    return { serve: 'redirect', url: record.archive.externalUrl, corrupt: false };
  }
  if (type === 'log' && record.archive?.logKey == null && record.archive?.externalUrl) return importedLog(record.id, record.archive.externalUrl);
  if (type === 'chat' && record.status === 'finished') await requireStoredChat(deps, record.id);
  const key = keyOf(record, type);
  if (key === null) throw new AppError('conflict', 'archive_not_ready', `${record.id} has no ${type} yet (status: ${record.status}).`);
  const corrupt = type === 'video' && isCorrupt(record);
  const meta = objectMeta(record, type);
  const direct = await deps.store.directUrl(key, meta);
  if (direct !== null) {
    // object storage serves the bytes (and Range) itself; counted as when Kura serves them
    const fromStart = request.range === undefined || /^bytes=0-/.test(request.range);
    if (type === 'video' && fromStart) await countIfDownload(deps, fetcher, record.id);
    return { serve: 'redirect', url: direct, corrupt };
  }
  const object = await deps.store.stat(key);
  if (object === null) throw new AppError('conflict', 'archive_not_ready', `The ${type} of ${record.id} is not in storage.`);
  const range = parseRange(request.range, object.bytes);
  if (range === 'unsatisfiable') return { serve: 'range-not-satisfiable', size: object.bytes, corrupt };
  if (type === 'video' && (range === undefined || range.start === 0)) await countIfDownload(deps, fetcher, record.id);
  return { serve: 'object', key, meta, size: object.bytes, range, corrupt };
}

/**
 * The encoder log of a record imported from the original service: where that instance served it,
 * beside the video it names (`…/api/download/{id}/video` → `…/ffmpeg`, as its web client asks);
 * a video named any other way came without a findable log (`log_not_imported`, 404).
 */
function importedLog(id: string, videoUrl: string): Download {
  const url = URL.parse(videoUrl);
  if (url !== null && url.pathname.endsWith(`/api/download/${encodeURIComponent(id)}/video`)) {
    url.pathname = `${url.pathname.slice(0, -'video'.length)}ffmpeg`;
    return { serve: 'redirect', url: url.href, corrupt: false };
  }
  throw new AppError('not_found', 'log_not_imported', `${id} was imported without its encoder log: only its video's address (${videoUrl}) came with it.`);
}

/** The object a download type serves; null while the record has none. */
function keyOf(record: Livestream, type: DownloadType): string | null {
  if (type === 'video') return record.archive?.videoKey ?? null;
  if (type === 'log') return record.archive?.logKey ?? null;
  // stored at finalize beside the video, when the stream had a chat (checked before)
  if (type === 'chat') return record.status === 'finished' && record.archive?.videoKey ? objectKeys.chat(record.id) : null;
  return record.archive?.thumbnailKey ?? null;
}

/** A video found missing is refused (410); one found corrupt is served, saying so. */
function isCorrupt(record: Livestream): boolean {
  const flag = record.integrity;
  if (flag?.state === 'missing') {
    throw new AppError(
      'gone',
      'archive_missing',
      `The video of ${record.id} was not in storage when it was verified (${flag.verifiedAt.toISOString()}). An operator can restore it and run "kura verify ${record.id}".`,
    );
  }
  return flag?.state === 'corrupt';
}

/** Counts a download when a person fetched it: not a HEAD, a crawler, or a player fetching to play. */
async function countIfDownload(deps: DownloadDeps, fetcher: Fetcher, id: string): Promise<void> {
  if (!fetcher.receivesBytes || fetcher.playing || CRAWLER.test(fetcher.userAgent)) return;
  await deps.livestreams.countDownload(id);
}
