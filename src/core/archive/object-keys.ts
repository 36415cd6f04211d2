import type { Livestream } from '../records/livestream.js';

/** Every object key Kura stores, built here and nowhere else. */
export const objectKeys = {
  video: (id: string) => `archives/${id}/${id}.mp4`,
  log: (id: string) => `archives/${id}/${id}.log`,
  thumbnail: (id: string) => `archives/${id}/${id}.jpg`,
  /** The live chat, one JSON message a line, stored gzip-compressed (served with `Content-Encoding: gzip`). */
  chat: (id: string) => `archives/${id}/${id}.chat.ndjson.gz`,
  /** A frame of a recent segment while the stream is recorded, replaced about once a minute; deleted once the archive is stored (its thumbnail replaces it). */
  liveFrame: (id: string) => `archives/${id}/${id}.live.jpg`,
  /**
   * A stored chunk: bytes of a capture's part, stored while the stream is recorded and deleted once the
   * archive is: `nonce` makes each upload's key its own (see capture_chunks).
   */
  captureChunk: (id: string, part: number, startOffset: number, nonce: string) =>
    `captures/${id}/part-${String(part).padStart(4, '0')}/${String(startOffset).padStart(14, '0')}-${nonce}`,
};

/** A live frame is shown in pages (served by Kura with caching of its own). */
export const LIVE_FRAME_META: ObjectMeta = { contentType: 'image/jpeg', contentDisposition: 'inline' };

/** Capture chunks are working data: never served to viewers. */
export const CHUNK_META: ObjectMeta = { contentType: 'application/octet-stream', contentDisposition: 'attachment' };

export type DownloadType = 'video' | 'log' | 'thumbnail' | 'chat';

export const CONTENT_TYPES: Record<DownloadType, string> = {
  video: 'video/mp4',
  log: 'text/plain; charset=utf-8',
  thumbnail: 'image/jpeg',
  chat: 'application/x-ndjson; charset=utf-8',
};

/** How an archive's object is served: its type, and `attachment` with a readable file name for the video. */
export interface ObjectMeta {
  contentType: string;
  contentDisposition: string;
  /** How the stored bytes are encoded (`gzip`: the chat), which a client undoes. */
  contentEncoding?: string;
}

/** The file name a download of the record's `type` is saved under: its title and id, without characters file systems refuse. */
export function fileNameOf(record: Pick<Livestream, 'id' | 'title'>, type: DownloadType): string {
  const extension = { video: 'mp4', log: 'log', thumbnail: 'jpg', chat: 'chat.ndjson' }[type];
  return `${record.title || record.id} [${record.id}].${extension}`.replace(/[\\/:*?"<>|\r\n]+/g, '_');
}

export function objectMeta(record: Pick<Livestream, 'id' | 'title'>, type: DownloadType): ObjectMeta {
  const readable = fileNameOf(record, type);
  const ascii = readable.replace(/[^\x20-\x7e]/g, '_');
  const disposition = type === 'video' ? 'attachment' : 'inline';
  return {
    contentType: CONTENT_TYPES[type],
    contentDisposition: `${disposition}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(readable)}`,
    ...(type === 'chat' ? { contentEncoding: 'gzip' } : {}),
  };
}
