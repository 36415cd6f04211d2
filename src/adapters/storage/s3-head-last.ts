// Decisions: docs/decisions/0040-s3-storage.md
import { createHash } from 'node:crypto';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { ObjectMeta } from '../../core/archive/object-keys.js';
import type { HeadLastWriter, StoredObject } from '../../core/archive/ports.js';

/**
 * Media bytes held back for part 1, which is uploaded last with the head in front: S3 takes the
 * parts of a multipart upload in any order, but every part but the last must be 5 MiB or more.
 */
const HEAD_PART_MEDIA_BYTES = 8 * 1024 * 1024;
/** Part 2's size; it doubles every 2,000 parts, so the 10,000 parts S3 allows hold ~1 TB. */
const MEDIA_PART_BYTES = 16 * 1024 * 1024;

export interface HeadLastContext {
  client: S3Client;
  bucket: string;
  /** Runs one request again after the store's faults (Kura's backoff). */
  retry: <T>(attempt: () => Promise<T>) => Promise<T>;
  /** Aborts an upload (with retries) and forgets it. */
  abort: (key: string, uploadId: string) => Promise<void>;
  /** Called once an upload is completed. */
  ended: (uploadId: string) => Promise<void>;
}

/** Size of media part `partNumber` (2 and up). */
function mediaPartBytes(partNumber: number): number {
  return MEDIA_PART_BYTES * 2 ** Math.floor((partNumber - 2) / 2000);
}

/**
 * A faststart MP4 uploaded as ffmpeg writes it: media parts 2, 3, … go up as they fill (memory
 * holds at most part 1's media and one part), part 1 — the head and the first media — last.
 * The sha256 is measured by reading the completed object back, as the head comes first in it
 * but is known last; that read also proves the bucket holds what the record will say.
 */
export async function beginS3HeadLast(context: HeadLastContext, key: string, meta: ObjectMeta): Promise<HeadLastWriter> {
  const { client, bucket: Bucket, retry } = context;
  const created = await retry(() =>
    client.send(new CreateMultipartUploadCommand({ Bucket, Key: key, ContentType: meta.contentType, ContentDisposition: meta.contentDisposition })),
  );
  const UploadId = created.UploadId as string;
  const uploaded: Array<{ PartNumber: number; ETag: string }> = [];
  // media is copied into two buffers kept for the whole upload (the head part's media, and the
  // part being filled), not allocated per piece: large short-lived buffers cost full garbage
  // collections. They grow as they fill, so a short archive does not take 24 MiB.
  let headMedia: Buffer = Buffer.allocUnsafe(0);
  let headMediaBytes = 0;
  let part: Buffer = Buffer.allocUnsafe(0);
  let partBytes = 0;

  const uploadPart = async (PartNumber: number, Body: Buffer) => {
    const { ETag } = await retry(() => client.send(new UploadPartCommand({ Bucket, Key: key, UploadId, PartNumber, Body })));
    uploaded.push({ PartNumber, ETag: ETag as string });
  };
  const flushPart = async () => {
    await uploadPart(uploaded.length + 2, part.subarray(0, partBytes));
    partBytes = 0;
  };

  return {
    kind: 'head-last',
    async writeMedia(bytes) {
      let rest = bytes;
      if (headMediaBytes < HEAD_PART_MEDIA_BYTES) {
        headMedia = room(headMedia, headMediaBytes + rest.length, HEAD_PART_MEDIA_BYTES);
        const taken = rest.copy(headMedia, headMediaBytes);
        headMediaBytes += taken;
        rest = rest.subarray(taken);
      }
      while (rest.length > 0) {
        const size = mediaPartBytes(uploaded.length + 2);
        part = room(part, partBytes + rest.length, size);
        const taken = rest.copy(part, partBytes);
        partBytes += taken;
        rest = rest.subarray(taken);
        if (partBytes === size) await flushPart();
      }
    },
    async complete(head) {
      if (partBytes > 0) await flushPart();
      await uploadPart(1, Buffer.concat([head, headMedia.subarray(0, headMediaBytes)]));
      const Parts = [...uploaded].sort((a, b) => a.PartNumber - b.PartNumber);
      await retry(() => client.send(new CompleteMultipartUploadCommand({ Bucket, Key: key, UploadId, MultipartUpload: { Parts } })));
      await context.ended(UploadId);
      return retry(() => measure(client, Bucket, key));
    },
    async abort() {
      await context.abort(key, UploadId);
    },
  };
}

/** `buffer`, or a larger one holding its bytes, with room for `wanted` bytes up to `limit` (doubling from 1 MiB). */
function room(buffer: Buffer, wanted: number, limit: number): Buffer {
  if (buffer.length >= Math.min(wanted, limit)) return buffer;
  let size = Math.max(1024 * 1024, buffer.length);
  while (size < Math.min(wanted, limit)) size *= 2;
  const grown = Buffer.allocUnsafe(Math.min(size, limit));
  buffer.copy(grown);
  return grown;
}

/** The stored object's size and sha256, read from the bucket. */
async function measure(client: S3Client, Bucket: string, Key: string): Promise<StoredObject> {
  const head = await client.send(new HeadObjectCommand({ Bucket, Key }));
  const object = await client.send(new GetObjectCommand({ Bucket, Key }));
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of object.Body as Readable) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  if (bytes !== head.ContentLength) throw new Error(`read ${bytes} bytes of ${Key}, the store says ${head.ContentLength}`);
  return { bytes, sha256: hash.digest('hex') };
}
