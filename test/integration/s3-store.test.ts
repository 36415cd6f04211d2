import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Store, S3_PART_BYTES } from '../../src/adapters/storage/s3-store.js';
import type { ArchiveStore, ObjectWriter, UploadJournal } from '../../src/core/archive/ports.js';
import { startS3, type TestS3 } from '../support/s3.js';

// A real S3-compatible server (s3rver) on loopback.
let s3: TestS3;
let store: ArchiveStore;
let dir: string;
beforeAll(async () => {
  s3 = await startS3();
  store = createS3Store(s3.config);
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-s3-store-'));
});
afterAll(() => s3.stop());

const meta = { contentType: 'video/mp4', contentDisposition: 'attachment; filename="Karaoke [abc].mp4"' };
const streamBytes = async (stream: NodeJS.ReadableStream) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

describe('the S3 archive store', () => {
  it('stores a multipart object whole, with its size, and serves it and ranges of it', async () => {
    const bytes = randomBytes(2 * S3_PART_BYTES + 12345); // three parts
    const file = path.join(dir, 'video.mp4');
    await writeFile(file, bytes);
    const stored = await store.put('archives/abc/abc.mp4', file, meta);
    expect(stored).toEqual({ bytes: bytes.length });
    expect(
      createHash('sha256')
        .update(await streamBytes(await store.read('archives/abc/abc.mp4')))
        .digest('hex'),
    ).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(await store.stat('archives/abc/abc.mp4')).toEqual({ bytes: bytes.length });
    expect((await streamBytes(await store.read('archives/abc/abc.mp4', { start: 10, end: 19 }))).equals(bytes.subarray(10, 20))).toBe(true);
    expect(await s3.openUploads()).toEqual([]);
  });

  it('hands out presigned URLs that serve the object with its type, disposition and Range', async () => {
    const bytes = randomBytes(1000);
    const file = path.join(dir, 'small.mp4');
    await writeFile(file, bytes);
    await store.put('archives/small/small.mp4', file, meta);
    const url = await store.directUrl('archives/small/small.mp4', meta);
    expect(url).toMatch(/X-Amz-Signature=/);
    const whole = await fetch(url as string);
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(whole.headers.get('content-disposition')).toBe(meta.contentDisposition);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const ranged = await fetch(url as string, { headers: { range: 'bytes=100-199' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
    expect(new URL(url as string).searchParams.get('X-Amz-Expires')).toBe(String(s3.config.presignSeconds));
  });

  it('serves a gzip-stored object (the chat) with its Content-Encoding, so a client gets the text', async () => {
    const text = '{"id":"m1","text":"hi 🎤"}\n';
    const file = path.join(dir, 'chat.ndjson.gz');
    await writeFile(file, gzipSync(text));
    const chatMeta = { contentType: 'application/x-ndjson; charset=utf-8', contentDisposition: 'inline; filename="x.chat.ndjson"', contentEncoding: 'gzip' };
    await store.put('archives/chat/chat.chat.ndjson.gz', file, chatMeta);
    const served = await fetch((await store.directUrl('archives/chat/chat.chat.ndjson.gz', chatMeta)) as string);
    expect(served.headers.get('content-encoding')).toBe('gzip');
    expect(await served.text()).toBe(text); // fetch undoes the encoding, as a browser does
  });

  it('points at S3_PUBLIC_URL instead when the operator has one', async () => {
    const publicStore = createS3Store({ ...s3.config, publicUrl: 'https://cdn.example/kura' });
    expect(await publicStore.directUrl('archives/a b/a b.mp4', meta)).toBe('https://cdn.example/kura/archives/a%20b/a%20b.mp4');
  });

  it('says a missing object is missing, and deletes', async () => {
    expect(await store.stat('archives/none/none.mp4')).toBeNull();
    await store.delete('archives/small/small.mp4');
    expect(await store.stat('archives/small/small.mp4')).toBeNull();
  });

  it('aborts the upload another worker began of an object it then stored (one stopping while another took its job)', async () => {
    // the storage_uploads journal two workers share, in memory
    const open = new Map<string, string>();
    const journal: UploadJournal = {
      started: async (key, uploadId) => void open.set(uploadId, key),
      ended: async (uploadId) => void open.delete(uploadId),
      open: async (key) => [...open].filter(([, openKey]) => openKey === key).map(([uploadId]) => uploadId),
    };
    const stopping = createS3Store(s3.config, { journal });
    let begun: ObjectWriter | undefined;
    // the taking worker's first attempt has begun when the stopping one begins the same object:
    // that aborts the taker's upload, whose next attempt stores the object while the other stalls
    const taking = createS3Store(s3.config, {
      retryDelaysMs: [10, 10],
      journal: {
        ...journal,
        async started(key, uploadId) {
          await journal.started(key, uploadId);
          begun ??= await stopping.beginWrite(key, meta);
        },
      },
    });
    const file = path.join(dir, 'taken.mp4');
    const bytes = randomBytes(S3_PART_BYTES + 1); // two parts: a multipart upload
    await writeFile(file, bytes);
    expect(await taking.put('archives/taken/taken.mp4', file, meta)).toEqual({ bytes: bytes.length });
    expect(begun).toBeDefined();
    expect(await s3.openUploads()).toEqual([]);
    expect(open.size).toBe(0);
  });

  it('fails a put whose file cannot be read without leaving an object or an open upload', async () => {
    await expect(store.put('archives/gone/gone.mp4', path.join(dir, 'missing.mp4'), meta)).rejects.toThrow(/ENOENT/);
    expect(await store.stat('archives/gone/gone.mp4')).toBeNull();
    expect(await s3.openUploads()).toEqual([]);
  });
});
