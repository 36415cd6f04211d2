import type { ObjectMeta } from './object-keys.js';

/** Bytes read on demand, in ranges: a capture part assembled from its stored chunks. */
export interface ByteSource {
  bytes: number;
  /** Bytes `start` to `end`, inclusive. */
  read(range: { start: number; end: number }): AsyncIterable<Uint8Array>;
  /** The files on this machine that hold these bytes whole, in order, when the store keeps them here: read them directly. */
  files?: readonly string[];
}

export interface StoredObject {
  bytes: number;
  sha256: string;
}

/**
 * An object written in one pass whose first bytes are known last: a faststart MP4, whose `moov`
 * (in front) describes the media after it. Nothing of it is visible until `complete`.
 */
export interface HeadLastWriter {
  kind: 'head-last';
  /** Appends media bytes; resolves once they may be dropped locally (stored, or copied by the writer). */
  writeMedia(bytes: Buffer): Promise<void>;
  /** Puts `head` in front of the media and makes the object appear whole; measures what was stored. */
  complete(head: Buffer): Promise<StoredObject>;
  /** Gives up, leaving nothing behind (no object, no billed parts). */
  abort(): Promise<void>;
}

/**
 * An object written whole into a file of its own on this machine, beside where it will appear;
 * nothing of it is visible until `complete`.
 */
export interface LocalFileWriter {
  kind: 'local-file';
  /** Where to write the object. */
  path: string;
  /** Makes the object appear as the file holds it (durably); measures it. */
  complete(): Promise<StoredObject>;
  /** Gives up, leaving nothing behind. */
  abort(): Promise<void>;
}

/** How a store takes an object written in one pass: as a local file (fs), or streamed with its head last (s3). */
export type ObjectWriter = LocalFileWriter | HeadLastWriter;

/** Where archives live (fs or s3). */
export interface ArchiveStore {
  /**
   * Stores a local file under `key` (whole or not at all), leaving the local file in place; returns
   * the stored size. Nothing is hashed: chunks and side files need no checksum, the archive's own is
   * measured by its writer (ObjectWriter).
   */
  put(key: string, localPath: string, meta: ObjectMeta): Promise<{ bytes: number }>;
  /** Starts an object written in one pass (see ObjectWriter): nothing is visible under `key` until it completes. */
  beginWrite(key: string, meta: ObjectMeta): Promise<ObjectWriter>;
  /** The object's file on this machine when the store keeps its objects here (fs), else null. */
  localPath(key: string): string | null;
  /** A URL clients fetch the object from directly (s3: presigned or public), or null when Kura serves it. */
  directUrl(key: string, meta: ObjectMeta): Promise<string | null>;
  stat(key: string): Promise<{ bytes: number } | null>;
  /** The object's bytes, optionally an inclusive byte range. */
  read(key: string, range?: { start: number; end: number }): Promise<NodeJS.ReadableStream>;
  delete(key: string): Promise<void>;
}

/**
 * Where an object store that uploads in parts (S3's multipart uploads) notes each upload in flight,
 * so one cut by a crash can be aborted later by any worker.
 */
export interface UploadJournal {
  started(key: string, uploadId: string): Promise<void>;
  ended(uploadId: string): Promise<void>;
  open(key: string): Promise<string[]>;
}
