// Decisions: docs/decisions/0040-s3-storage.md
import { createReadStream } from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import { AbortMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../../config/config.js';
import type { ObjectMeta } from '../../core/archive/object-keys.js';
import type { ArchiveStore, UploadJournal } from '../../core/archive/ports.js';
import { beginS3HeadLast } from './s3-head-last.js';

/** Multipart part size: large enough for few requests, small enough to retry cheaply. */
export const S3_PART_BYTES = 8 * 1024 * 1024;
/** Attempts per S3 request inside the SDK (quick: the longer waits are Kura's, below). */
const S3_ATTEMPTS = 3;
/**
 * Waits between whole attempts to store an object (about 30 s in all, enough to ride out a short
 * outage of the store); after the last, finalize fails and its job is retried later. The capture
 * stays in the spool until its archive is stored, so nothing is lost either way.
 */
export const S3_RETRY_DELAYS_MS = [1000, 2000, 4000, 8000, 15000];

export function createS3Client(config: S3Config): S3Client {
  return new S3Client({
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    maxAttempts: S3_ATTEMPTS,
    // no CRC32 of every body on top of what is already checked: a request's payload is signed with
    // its sha256 (SigV4), and a stored archive is measured by reading it back whole
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
    ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
  });
}

export interface S3StoreOptions {
  client?: S3Client;
  retryDelaysMs?: readonly number[];
  journal?: UploadJournal;
}

/**
 * Archives in an S3-compatible bucket. Objects carry their content type and disposition, so a
 * public URL serves them right; downloads redirect to `S3_PUBLIC_URL` or to a presigned URL.
 * A failed multipart upload is aborted (with retries), so no orphaned parts are billed.
 */
export function createS3Store(config: S3Config, options: S3StoreOptions = {}): ArchiveStore {
  const { client = createS3Client(config), retryDelaysMs = S3_RETRY_DELAYS_MS, journal } = options;
  const Bucket = config.bucket;
  if (journal !== undefined) noteMultipartUploads(client, journal);

  /** Aborts an upload (retrying while the store is down) and forgets it. */
  const abort = async (key: string, uploadId: string) => {
    await withRetries(retryDelaysMs, () => client.send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId: uploadId })));
    await journal?.ended(uploadId);
  };

  /** One attempt: a multipart upload, aborted (with retries) when it fails. */
  const putOnce = async (key: string, localPath: string, meta: ObjectMeta) => {
    const upload = multipartUpload(client, Bucket, key, localPath, meta);
    try {
      await upload.done();
    } catch (error) {
      if (upload.uploadId !== undefined) await abort(key, upload.uploadId).catch(() => undefined);
      throw error;
    }
    if (upload.uploadId !== undefined) await journal?.ended(upload.uploadId);
    const stored = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
    return { bytes: stored.ContentLength ?? 0 };
  };

  /**
   * Parts of other uploads of this object are not left billed: before an upload, those of earlier
   * attempts cut by a crash; after it, those of a worker that began the same object meanwhile (one
   * stopping while another took its job over), which the stored object made useless.
   */
  const abortOtherUploads = async (key: string) => {
    for (const uploadId of (await journal?.open(key)) ?? []) await abort(key, uploadId);
  };

  return {
    async put(key, localPath, meta) {
      await abortOtherUploads(key);
      const stored = await withRetries(retryDelaysMs, () => putOnce(key, localPath, meta));
      await abortOtherUploads(key);
      return stored;
    },
    async beginWrite(key, meta) {
      await abortOtherUploads(key);
      return beginS3HeadLast(
        {
          client,
          bucket: Bucket,
          retry: (attempt) => withRetries(retryDelaysMs, attempt),
          abort,
          ended: async (uploadId) => {
            await journal?.ended(uploadId);
            await abortOtherUploads(key);
          },
        },
        key,
        meta,
      );
    },
    localPath: () => null,
    async directUrl(key, meta) {
      if (config.publicUrl !== undefined) return `${config.publicUrl}/${key.split('/').map(encodeURIComponent).join('/')}`;
      const command = new GetObjectCommand({
        Bucket,
        Key: key,
        ResponseContentType: meta.contentType,
        ResponseContentDisposition: meta.contentDisposition,
        ResponseContentEncoding: meta.contentEncoding,
      });
      return getSignedUrl(client, command, { expiresIn: config.presignSeconds });
    },
    async stat(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { bytes: head.ContentLength ?? 0 };
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },
    async read(key, range) {
      const object = await client.send(
        new GetObjectCommand({ Bucket, Key: key, ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }) }),
      );
      return object.Body as Readable;
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
  };
}

/** A multipart upload of a local file; its parts stay behind when it fails, for the caller to abort. */
function multipartUpload(client: S3Client, Bucket: string, key: string, localPath: string, meta: ObjectMeta): Upload {
  const body = new PassThrough();
  createReadStream(localPath)
    .on('error', (error) => body.destroy(error))
    .pipe(body);
  return new Upload({
    client,
    params: {
      Bucket,
      Key: key,
      Body: body,
      ContentType: meta.contentType,
      ContentDisposition: meta.contentDisposition,
      ContentEncoding: meta.contentEncoding,
    },
    partSize: S3_PART_BYTES,
    queueSize: 2,
    leavePartsOnError: true, // aborted by the caller, with retries, so an outage leaves no billed parts
  });
}

function isNotFound(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404);
}

/** Notes every multipart upload the client starts before its first part is sent. */
function noteMultipartUploads(client: S3Client, journal: UploadJournal): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'CreateMultipartUploadCommand') {
        const { UploadId } = result.output as { UploadId?: string };
        const { Key } = args.input as { Key?: string };
        if (UploadId !== undefined && Key !== undefined) await journal.started(Key, UploadId);
      }
      return result;
    },
    { step: 'initialize', name: 'kuraUploadJournal' },
  );
}

/** Runs `attempt`, and again after each delay while it fails; the last failure is thrown. */
async function withRetries<T>(delaysMs: readonly number[], attempt: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      const delay = delaysMs[i];
      if (delay === undefined || !isRetryable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** Faults of the store or the network; a missing local file or a refused request is not retried. */
function isRetryable(error: unknown): boolean {
  if (error instanceof S3ServiceException) return error.$fault === 'server' || (error.$metadata.httpStatusCode ?? 500) >= 500 || error.name === 'SlowDown';
  const code = (error as NodeJS.ErrnoException).code;
  return code !== 'ENOENT' && code !== 'EACCES' && code !== 'EISDIR';
}
