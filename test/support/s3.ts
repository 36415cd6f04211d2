// Decisions: docs/decisions/0119-tests-that-cannot-lie.md
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import S3rver, { type FilesystemStore } from 's3rver';
import { createS3Client } from '../../src/adapters/storage/s3-store.js';
import type { S3Config } from '../../src/config/config.js';

export interface Outage {
  began: Promise<void>;
  end(): number;
}

export interface TestS3 {
  config: S3Config;
  /** The environment `kura` needs to use this server. */
  env: Record<string, string>;
  /** While true, every request is answered 503 (an outage of the object store). */
  unavailable: boolean;
  /**
   * An outage that begins at the first request `trigger` accepts (that request is refused too)
   * and lasts until `end()`, which says how many requests were refused.
   */
  outageFrom(trigger: (method: string, path: string, query: Record<string, string | undefined>) => boolean): Outage;
  /**
   * Holds every request `trigger` accepts (without answering it) until `release()`: a store that
   * stalls one kind of request while it answers the others.
   */
  holdWhile(trigger: (method: string, path: string) => boolean): { began: Promise<void>; release(): void };
  /** Multipart uploads started and neither completed nor aborted. */
  openUploads(): Promise<string[]>;
  /** Keys of the objects in the bucket under `prefix`. */
  keys(prefix: string): Promise<string[]>;
  stop(): Promise<void>;
}

const BUCKET = 'kura';

/**
 * A real S3-compatible server (s3rver) on 127.0.0.1 with a `kura` bucket. s3rver does not
 * implement AbortMultipartUpload; a middleware here does, on s3rver's own upload store, so an
 * aborted upload leaves nothing behind exactly as on S3.
 */
export async function startS3(): Promise<TestS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'kura-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: BUCKET }] });
  writeObjectsBeforeAnswering(server.store);
  const uploadsDir = path.join(directory, BUCKET, '._S3rver_uploads');
  const s3: TestS3 = {
    config: {
      endpoint: '',
      region: 'us-east-1',
      bucket: BUCKET,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      forcePathStyle: true,
      publicUrl: undefined,
      presignSeconds: 600,
    },
    env: {},
    unavailable: false,
    outageFrom: (trigger) => {
      let begin = () => undefined as void;
      const began = new Promise<void>((resolve) => (begin = resolve));
      const current = { trigger, begin, refused: 0 };
      outage = current;
      return {
        began,
        end: () => {
          s3.unavailable = false;
          outage = null;
          return current.refused;
        },
      };
    },
    holdWhile: (trigger) => {
      let begin = () => undefined as void;
      const began = new Promise<void>((resolve) => (begin = resolve));
      let release = () => undefined as void;
      const released = new Promise<void>((resolve) => (release = resolve));
      hold = { trigger, begin, released };
      return {
        began,
        release: () => {
          hold = null;
          release();
        },
      };
    },
    openUploads: () => readdir(uploadsDir).catch(() => []),
    keys: async (prefix) => {
      const client = createS3Client(s3.config);
      const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
      client.destroy();
      return (listed.Contents ?? []).map((object) => object.Key as string);
    },
    stop: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
  let outage: { trigger: (method: string, path: string, query: Record<string, string | undefined>) => boolean; begin: () => void; refused: number } | null =
    null;
  let hold: { trigger: (method: string, path: string) => boolean; begin: () => void; released: Promise<void> } | null = null;
  server.middleware.unshift(async (ctx, next) => {
    if (hold !== null && hold.trigger(ctx.method, ctx.path)) {
      hold.begin();
      await hold.released;
    }
    const query = Object.fromEntries(new URL(ctx.url, 'http://s3.test').searchParams);
    if (outage !== null && !s3.unavailable && outage.refused === 0 && outage.trigger(ctx.method, ctx.path, query)) {
      s3.unavailable = true;
      outage.begin();
    }
    if (s3.unavailable) {
      if (outage !== null) outage.refused += 1;
      ctx.status = 503;
      ctx.body = 'unavailable (test outage)';
      return;
    }
    const uploadId = query.uploadId;
    if (ctx.method === 'DELETE' && uploadId !== undefined && /^[0-9a-f]+$/.test(uploadId)) {
      await rm(path.join(uploadsDir, uploadId), { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    await next();
  });
  const { port } = await server.run();
  s3.config.endpoint = `http://127.0.0.1:${port}`;
  s3.env = {
    KURA_STORAGE: 's3',
    S3_ENDPOINT: s3.config.endpoint,
    S3_REGION: s3.config.region,
    S3_BUCKET: BUCKET,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  };
  return s3;
}

/**
 * s3rver 3.7.1 answers a PUT once its md5 transform has seen the bytes, before its file stream has
 * written them: a HEAD soon after can read the object shorter than it is (its size is the file's),
 * which on a loaded machine made an archive check find a fine archive "corrupt" (1 object in 300
 * read short right after the PUT with both cores busy). S3 itself is read-after-write consistent:
 * here the object is on disk before the PUT is answered, as s3rver meant.
 */
function writeObjectsBeforeAnswering(store: FilesystemStore): void {
  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(path.dirname(objectPath), { recursive: true });
    const md5 = createHash('md5');
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    await pipeline(content, measure, createWriteStream(objectPath));
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
}
